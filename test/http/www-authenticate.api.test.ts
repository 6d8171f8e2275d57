import request from 'supertest';

import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY } from '../helpers/demo.js';
import { loginAndGetToken } from '../helpers/oauth.js';
import { API_ROUTES, appWithRouteIds, fillPath, routeName, type ApiRoute, type RouteIds } from './route-table.js';

const CHALLENGE = 'Bearer realm="water-sandbox"';
// RFC 6750 section 3: error_description is printable ASCII without '"' and '\'.
const REFUSAL =
  /^Bearer realm="water-sandbox", error="invalid_token", error_description="[\x20\x21\x23-\x5b\x5d-\x7e]+"$/;
const ACCOUNT_FORM = '"Authorization: Bearer <API key or access token>"';
const BASIC = 'Basic ZGVtby1jbGllbnQ6ZGVtby1jbGllbnQtc2VjcmV0';

interface Refusal {
  caller: string;
  /** The Authorization header, or a function of the expired access token. */
  authorization: string | null | ((expiredToken: string) => string);
  status: 401 | 403;
  error: string;
  challenge: string | RegExp;
  message: string;
  /** Text the message must never repeat. */
  secret?: string;
}

const refusals = (form: string): Refusal[] => [
  {
    caller: 'no Authorization header',
    authorization: null,
    status: 401,
    error: 'missing_credentials',
    challenge: CHALLENGE,
    message: `The Authorization header is missing; send ${form}`,
  },
  {
    caller: 'the Basic scheme',
    authorization: BASIC,
    status: 401,
    error: 'missing_credentials',
    challenge: CHALLENGE,
    message: `The Authorization header uses the Basic scheme; this call takes the Bearer scheme: ${form}`,
    secret: BASIC.slice(6),
  },
  {
    caller: 'the Token scheme',
    authorization: `Token ${DEMO_API_KEY}`,
    status: 401,
    error: 'missing_credentials',
    challenge: CHALLENGE,
    message: `The Authorization header uses the Token scheme; this call takes the Bearer scheme: ${form}`,
    secret: DEMO_API_KEY,
  },
  {
    caller: 'a bare key with no scheme',
    authorization: DEMO_API_KEY,
    status: 401,
    error: 'missing_credentials',
    challenge: CHALLENGE,
    message: `The Authorization header has a value but no scheme; put "Bearer " before it: ${form} (the value is not repeated here)`,
    secret: DEMO_API_KEY,
  },
  {
    caller: 'Bearer with nothing',
    authorization: 'Bearer',
    status: 401,
    error: 'missing_credentials',
    challenge: CHALLENGE,
    message: `The Authorization header has the Bearer scheme but no key; send ${form}`,
  },
  {
    caller: 'Bearer with two words',
    authorization: `Bearer ${DEMO_API_KEY} extra`,
    status: 401,
    error: 'missing_credentials',
    challenge: CHALLENGE,
    message: `The Authorization header has 2 words after Bearer; the credential is one word with no spaces: ${form}`,
    secret: DEMO_API_KEY,
  },
];

const accountRefusals: Refusal[] = [
  ...refusals(ACCOUNT_FORM),
  {
    caller: 'an unknown key',
    authorization: `Bearer ${'x'.repeat(46)}`,
    status: 403,
    error: 'invalid_credentials',
    challenge: REFUSAL,
    message: 'The API key or access token in the Authorization header is not valid for this sandbox',
  },
  {
    caller: 'an expired access token',
    authorization: (expired) => `Bearer ${expired}`,
    status: 403,
    error: 'token_expired',
    challenge: REFUSAL,
    message: expect.stringMatching(/^The access token expired at .*; refresh it through \/oauth2\/token$/),
  },
];

const accountRoutes = API_ROUTES.filter((route) => route.guard === 'account');
const adminRoutes = API_ROUTES.filter((route) => route.guard === 'admin');

const send = (t: TestApp, route: ApiRoute, ids: RouteIds, authorization: string | null): request.Test => {
  let req = request(t.app)[route.method](`${fillPath(route.path, ids)}${route.query ? `?${route.query}` : ''}`);
  if (authorization !== null) req = req.set('Authorization', authorization);
  return route.body ? req.send(route.body) : req;
};

function expectRefusal(res: request.Response, refusal: Refusal): void {
  expect({ status: res.status, error: res.body.error, message: res.body.message }).toEqual({
    status: refusal.status,
    error: refusal.error,
    message: refusal.message,
  });
  const challenge = res.headers['www-authenticate'];
  if (typeof refusal.challenge === 'string') expect(challenge).toBe(refusal.challenge);
  else expect(challenge).toMatch(refusal.challenge);
  if (refusal.secret) expect(JSON.stringify(res.body) + String(challenge)).not.toContain(refusal.secret);
}

describe('every /v1 and /sandbox route of an account', () => {
  let t: TestApp;
  let ids: RouteIds;
  let expiredToken: string;
  beforeAll(async () => {
    ({ t, ids } = await appWithRouteIds());
    expiredToken = (await loginAndGetToken(t.app)).access_token;
    await request(t.app)
      .post('/sandbox/tokens/expire')
      .set(bearer(DEMO_API_KEY))
      .send({ accessToken: expiredToken })
      .expect(200);
  });

  const cases = accountRoutes.flatMap((route) =>
    accountRefusals.map((refusal) => [routeName(route), refusal.caller, route, refusal] as const),
  );
  it.each(cases)('%s with %s: %#', async (_route, _caller, route, refusal) => {
    const authorization =
      typeof refusal.authorization === 'function' ? refusal.authorization(expiredToken) : refusal.authorization;
    expectRefusal(await send(t, route, ids, authorization), refusal);
  });
});

describe.each(accountRoutes.map((route) => [routeName(route), route] as const))(
  '%s with the right key',
  (_name, route) => {
    it('answers as usual, with no challenge', async () => {
      const { t, ids } = await appWithRouteIds();
      const res = await send(t, route, ids, `Bearer ${DEMO_API_KEY}`);
      expect({ status: res.status, challenge: res.headers['www-authenticate'] }).toEqual({
        status: route.ok,
        challenge: undefined,
      });
    });
  },
);

describe('the global admin calls when ADMIN_TOKEN is set', () => {
  const ADMIN_TOKEN = 'let-me-in-admin-token';
  const adminRefusals: Refusal[] = [
    ...refusals('"Authorization: Bearer <ADMIN_TOKEN>"'),
    {
      caller: "an account's API key",
      authorization: `Bearer ${DEMO_API_KEY}`,
      status: 403,
      error: 'invalid_credentials',
      challenge: REFUSAL,
      message: 'The admin token is not valid',
    },
  ];
  let t: TestApp;
  let ids: RouteIds;
  beforeAll(async () => {
    ({ t, ids } = await appWithRouteIds({ env: { ADMIN_TOKEN } }));
  });

  const cases = adminRoutes.flatMap((route) =>
    adminRefusals.map((refusal) => [routeName(route), refusal.caller, route, refusal] as const),
  );
  it.each(cases)('%s with %s: %#', async (_route, _caller, route, refusal) => {
    expectRefusal(await send(t, route, ids, refusal.authorization as string | null), refusal);
  });

  it.each(adminRoutes.map((route) => [routeName(route), route] as const))(
    '%s with the admin token answers with no challenge',
    async (_name, route) => {
      const res = await send(t, route, ids, `Bearer ${ADMIN_TOKEN}`);
      expect({ status: res.status, challenge: res.headers['www-authenticate'] }).toEqual({
        status: route.ok,
        challenge: undefined,
      });
    },
  );
});

it('does not echo a first word that may be a secret rather than a scheme name', async () => {
  const t = await buildTestApp();
  const secretish = 'sk_live_0123456789abcdefghijklmnop';
  const res = await request(t.app).get('/v1/locations').set('Authorization', `${secretish} trailing`).expect(401);
  expect(res.body.message).toBe(
    `The Authorization header uses a scheme other than Bearer; this call takes the Bearer scheme: ${ACCOUNT_FORM}`,
  );
});

it.each([
  ['the scheme in lower case', `bearer ${DEMO_API_KEY}`],
  ['the scheme in upper case', `BEARER ${DEMO_API_KEY}`],
  ['several spaces and a tab between scheme and key', `Bearer  \t ${DEMO_API_KEY}`],
  ['spaces around the whole value', `  Bearer ${DEMO_API_KEY}  `],
])(
  'takes %s (RFC 9110: the scheme is case-insensitive, whitespace is not part of the key)',
  async (_form, authorization) => {
    const t = await buildTestApp();
    const res = await request(t.app).get('/v1/locations').set('Authorization', authorization);
    expect({ status: res.status, challenge: res.headers['www-authenticate'] }).toEqual({
      status: 200,
      challenge: undefined,
    });
  },
);
