import type { Express } from 'express';
import request from 'supertest';

import { bearer, DEMO_API_KEY, DEMO_CLIENT } from './demo.js';
import { basicAuth, loginAndGetToken, type OAuthTokens, partnerRegistration } from './oauth.js';

/** The credentials POST /sandbox/oauth-clients answers with: what a partner's app signs in with. */
export interface RegisteredClient {
  client_id: string;
  client_secret: string;
}

/** The demo account's fixture client (demo-client), as a registration would answer it. */
export const DEMO_REGISTERED_CLIENT: RegisteredClient = {
  client_id: DEMO_CLIENT.clientId,
  client_secret: DEMO_CLIENT.clientSecret,
};

/**
 * Registers an OAuth client as a partner does, for the account of `apiKey` (the demo one unless
 * given): production's registration form, `overrides` applied. Throws unless it answers 201.
 */
export async function registerClient(
  app: Express,
  overrides: Record<string, unknown> = {},
  apiKey = DEMO_API_KEY,
): Promise<RegisteredClient> {
  const res = await request(app)
    .post('/sandbox/oauth-clients')
    .set(bearer(apiKey))
    .send(partnerRegistration(overrides));
  if (res.status !== 201) throw new Error(`registering a client answered ${res.status}: ${res.text}`);
  return res.body as RegisteredClient;
}

/** The real sign-in (login form, code, token request) through a registered client, back to `redirectUri`. */
export function signInThrough(app: Express, client: RegisteredClient, redirectUri: string): Promise<OAuthTokens> {
  return loginAndGetToken(app, { clientId: client.client_id, clientSecret: client.client_secret, redirectUri });
}

/** The token request with which a client trades a refresh token for fresh tokens (HTTP Basic), unsent. */
export function refreshRequest(app: Express, refreshToken: string, client = DEMO_REGISTERED_CLIENT): request.Test {
  return request(app)
    .post('/oauth2/token')
    .set('Authorization', basicAuth(client.client_id, client.client_secret))
    .type('form')
    .send({ grant_type: 'refresh_token', refresh_token: refreshToken });
}
