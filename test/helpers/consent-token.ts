import type { Express } from 'express';
import request from 'supertest';

import { DEMO_USER } from './demo.js';
import { registerClient } from './oauth-clients.js';
import { basicAuth, formFields, loginPath } from './oauth.js';

const CALLBACK = 'https://agents-test-app.example/callback';

/**
 * An access token of the demo account's user issued to a client another account registered, which
 * the user allowed on the consent page: the "consent" kind of token (contract sections 4 and 9),
 * made through the real flow (a fresh account registers the client; the user signs in, allows it;
 * the client exchanges the code).
 */
export async function consentKindToken(app: Express): Promise<string> {
  const account = await request(app)
    .post('/sandbox/accounts')
    .set('X-Forwarded-For', '198.51.100.41')
    .send({})
    .expect(201);
  const client = await registerClient(
    app,
    {
      applicationName: 'Agents Test App',
      applicationWebsite: 'https://agents-test-app.example',
      redirectUri: CALLBACK,
    },
    (account.body as { apiKey: string }).apiKey,
  );
  const browser = request.agent(app);
  const form = await browser.get('/').expect(200);
  await browser
    .post('/dashboard/sign-in')
    .type('form')
    .send({ ...formFields(form.text), ...DEMO_USER })
    .expect(303);
  const consent = await browser.get(loginPath({ clientId: client.client_id, redirectUri: CALLBACK })).expect(200);
  const allowed = await browser
    .post('/login/consent')
    .type('form')
    .send({ ...formFields(consent.text), decision: 'allow' })
    .expect(302);
  const code = new URL(allowed.headers['location'] as string).searchParams.get('code');
  if (code === null) throw new Error(`the consent page gave no code: ${String(allowed.headers['location'])}`);
  const tokens = await request(app)
    .post('/oauth2/token')
    .set('Authorization', basicAuth(client.client_id, client.client_secret))
    .type('form')
    .send({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK })
    .expect(200);
  return (tokens.body as { access_token: string }).access_token;
}
