import request from 'supertest';

import { useAppAndReceiver } from '../helpers/app-and-receiver.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { loginAndGetToken } from '../helpers/oauth.js';
import { givenPendingSubscription } from '../helpers/subscriptions.js';
import { advance } from '../scenarios/given.js';

const { t, receiver } = useAppAndReceiver({ env: { ACCESS_TOKEN_TTL: '3600', CONFIRMATION_TOKEN_TTL: '600' } });

describe('access token expiry follows the account clock', () => {
  it('accepts the token until ACCESS_TOKEN_TTL has passed on the account clock, then answers 403 token_expired', async () => {
    const { access_token: token, expires_in: expiresIn } = await loginAndGetToken(t.app);
    expect(expiresIn).toBe(3600);
    await request(t.app).get('/v1/locations').set(bearer(token)).expect(200);

    await advance(t, 3599).expect(200);
    await request(t.app).get('/v1/locations').set(bearer(token)).expect(200);

    await advance(t, 1).expect(200);
    const res = await request(t.app).get('/v1/locations').set(bearer(token)).expect(403);
    expect(res.body.error).toBe('token_expired');
  });

  it('leaves the token valid when only the process clock would have passed its expiry on a frozen account clock', async () => {
    const { access_token: token } = await loginAndGetToken(t.app);
    await request(t.app).post('/sandbox/clock').set(bearer(DEMO_API_KEY)).send({ frozen: true }).expect(200);
    t.clock.advance(7_200_000);
    await request(t.app).get('/v1/locations').set(bearer(token)).expect(200);
  });
});

describe('confirmation token expiry follows the account clock', () => {
  const confirm = (confirmationUrl: string): request.Test => {
    const url = new URL(confirmationUrl);
    return request(t.app).get(`${url.pathname}${url.search}`).set(bearer(DEMO_API_KEY));
  };

  it('refuses the confirmation with 400 confirmation_token_expired once CONFIRMATION_TOKEN_TTL has passed', async () => {
    const { confirmationUrl } = await givenPendingSubscription(t, receiver, DEMO_LOCATION_ID);
    await advance(t, 601).expect(200);
    const res = await confirm(confirmationUrl).expect(400);
    expect(res.body).toMatchObject({ error: 'confirmation_token_expired', parameter: 'confirmationToken' });
  });

  it('confirms just before CONFIRMATION_TOKEN_TTL has passed', async () => {
    const { confirmationUrl } = await givenPendingSubscription(t, receiver, DEMO_LOCATION_ID);
    await advance(t, 599).expect(200);
    const res = await confirm(confirmationUrl).expect(200);
    expect(res.body.status).toBe('confirmed');
  });
});
