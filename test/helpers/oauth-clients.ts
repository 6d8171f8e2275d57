import type { Express } from 'express';
import request from 'supertest';

import { bearer, DEMO_API_KEY } from './demo.js';
import { loginAndGetToken, type OAuthTokens, partnerRegistration } from './oauth.js';

/** The credentials POST /sandbox/oauth-clients answers with: what a partner's app signs in with. */
export interface RegisteredClient {
  client_id: string;
  client_secret: string;
}

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
