import fc from 'fast-check';
import request from 'supertest';

import { csrfCookieName, sessionCookieName } from '../../src/auth/cookies.js';
import { listen } from '../auth/listening.js';
import { docOf, type TestApp } from '../helpers/build-test-app.js';
import {
  bearer,
  DEMO_ACCOUNT_ID,
  DEMO_API_KEY,
  DEMO_LOCATIONS,
  OTHER_ACCOUNT_ID,
  OTHER_API_KEY,
  OTHER_LOCATIONS,
} from '../helpers/demo.js';
import { basicAuth } from '../helpers/oauth.js';
import {
  API_ROUTES,
  fillPath,
  appWithRouteIds,
  OTHER_ROUTES,
  registeredRoutes,
  RELAY_ROUTES,
  type RouteIds,
} from './route-table.js';

const SESSION_COOKIE = sessionCookieName({ secureCookies: false });
const CSRF_COOKIE = csrfCookieName({ secureCookies: false });

/**
 * Malformed requests on every route: never a 5xx; every error is JSON with a string `message`
 * (RFC 6749 {error, error_description} on the token endpoint, a JSON-RPC error from /mcp's transport); and the stored state still
 * serves the fixtures after each property's requests. The HTML pages (/login, /logout, / and the dashboard forms)
 * may answer a person's browser with an HTML 4xx page instead; nowhere else does HTML appear.
 *
 * FUZZ_RUNS sets the number of requests, shared by the four properties (default 800);
 * FUZZ_SEED replays a run that failed.
 */
const TOTAL_RUNS = Number(process.env['FUZZ_RUNS'] ?? 800);
const RUNS_PER_PROPERTY = Math.ceil(TOTAL_RUNS / 4);
const SEED = process.env['FUZZ_SEED'] === undefined ? {} : { seed: Number(process.env['FUZZ_SEED']) };
const PROPERTY_TIMEOUT_MS = Math.max(30_000, RUNS_PER_PROPERTY * 30);

const PAGE_PATHS = ['/login', '/login/consent', '/logout', '/', '/dashboard/sign-in', '/dashboard/sign-out', '/demo'];
/** The HTML pages: those above, and an audience link's page (an unknown link is a 404 page, not JSON). */
const isPagePath = (path: string): boolean => PAGE_PATHS.includes(path) || /^\/demo\/watch\/[^/]+$/.test(path);
const LOCATION_KEYS = ['alerts', 'devices', 'homeAway', 'locationId', 'name', 'subscriptionIds'];

type Method = 'get' | 'post' | 'put' | 'delete' | 'patch' | 'head' | 'options';

interface FuzzedRequest {
  method: Method;
  path: string;
  query: string | null;
  headers: Record<string, string>;
  body: Buffer | null;
}

interface RouteShape {
  method: Method;
  path: string;
  query?: string;
  body?: Record<string, unknown>;
}

const ROUTES: RouteShape[] = [...API_ROUTES, ...OTHER_ROUTES];

// ---- paths ----------------------------------------------------------------------------------

const BAD_ESCAPES = ['%', '%%', '%E0%A4%A', '%FF', '%C0%80', '%ED%A0%80', '%zz', '%0', '%G1', '%E2%82', '%F4%90%80%80'];
const ODD_PIECES = [
  '%2F',
  '%00',
  '%25',
  '%20',
  '..',
  '.',
  '%2e%2e',
  '//',
  ';',
  ':',
  '@',
  '~',
  '+',
  '*',
  '-1',
  '0',
  '1e400',
  'NaN',
  'null',
];
// What Node's client lets through in a request target: printable ASCII, without '?' and '#'.
const pathChar = fc
  .mapToConstant({ num: 0x7e - 0x21 + 1, build: (v) => String.fromCharCode(0x21 + v) })
  .filter((c) => c !== '?' && c !== '#');
const oddPieces = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(...ODD_PIECES) },
  { weight: 3, arbitrary: pathChar },
);
const pieces = (piece: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.array(piece, { maxLength: 16 }).map((parts) => parts.join(''));
// A third of the segments are not valid percent-encoding; the rest reach the routes.
const segment = fc.oneof(
  { weight: 1, arbitrary: pieces(fc.oneof(fc.constantFrom(...BAD_ESCAPES), oddPieces)) },
  { weight: 2, arbitrary: pieces(oddPieces) },
);
const longSegment = fc
  .constantFrom('a', '%41', '%')
  .chain((unit) => fc.integer({ min: 200, max: 2000 }).map((n) => unit.repeat(n)));

const fuzzedIds: fc.Arbitrary<RouteIds> = fc.record({
  locationId: fc.oneof(segment, longSegment),
  subscriptionId: segment,
  alertId: segment,
  deliveryId: segment,
  runId: segment,
  scenario: segment,
  clientId: segment,
  file: segment,
  linkId: segment,
  token: segment,
});

const insertAt = (text: string, insert: string, at: number): string => {
  const i = Math.min(text.length, Math.max(1, at));
  return text.slice(0, i) + insert + text.slice(i);
};

const badPath = (route: RouteShape, ids: RouteIds): fc.Arbitrary<string> =>
  fc.oneof(
    fuzzedIds.map((fuzzed) => fillPath(route.path, fuzzed)),
    fc
      .tuple(fc.constantFrom(...BAD_ESCAPES), fc.nat())
      .map(([escape, at]) => insertAt(fillPath(route.path, ids), escape, at)),
    fc
      .constantFrom(
        (p: string) => p.toUpperCase(),
        (p: string) => `${p}/`,
        (p: string) => p.replace(/\//g, '//'),
        (p: string) => `${p}/..`,
        (p: string) => `/v1/..${p}`,
        (p: string) => `${p}%`,
        (p: string) => p.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`),
      )
      .map((mutate) => mutate(fillPath(route.path, ids))),
    fc.array(segment, { minLength: 1, maxLength: 5 }).map((segments) => `/${segments.join('/')}`),
  );

// ---- queries --------------------------------------------------------------------------------

const QUERY_KEYS = [
  'startTime',
  'endTime',
  'groupBy',
  'page',
  'perPage',
  'confirmationToken',
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'logout_uri',
  'subscriptionId',
  'locationId',
  'kind',
  'active',
];
const ODD_VALUES = [
  '',
  '0',
  '-1',
  '1.5',
  '1e400',
  '99999999999999999999999',
  '9007199254740993',
  '-0',
  'NaN',
  'Infinity',
  '0x10',
  'true',
  'null',
  '[]',
  '{}',
  'hour',
  'decade',
  '2026-03-01T00:00:00Z',
  '2026-03-01T00:00:00 05:00',
  '2026-02-30',
  '1700000000',
  '-62167219200',
  '275760-09-13T00:00:00Z',
  'code',
  'demo-client',
  'waterapp://callback',
];
const queryValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ODD_VALUES) },
  { weight: 1, arbitrary: segment },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }).map(encodeURIComponent) },
);
const queryKey = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...QUERY_KEYS) },
  { weight: 1, arbitrary: segment },
  { weight: 1, arbitrary: fc.constantFrom('a[]', 'a[b]', '__proto__', 'constructor', 'toString') },
);
const queryPair = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(queryKey, queryValue).map(([k, v]) => `${k}=${v}`) },
  { weight: 1, arbitrary: queryKey },
  { weight: 1, arbitrary: fc.tuple(queryKey, queryValue).map(([k, v]) => `${k}==${v}`) },
  { weight: 1, arbitrary: queryValue.map((v) => `=${v}`) },
  { weight: 1, arbitrary: fc.constant('') },
);
const badQuery = (route: RouteShape): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.array(queryPair, { maxLength: 8 }).map((pairs) => pairs.join('&')) },
    // Repeated keys: the route's own parameters given twice.
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constant(route.query ?? 'page=1'), queryPair)
        .map(([query, pair]) => `${query}&${query}&${pair}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constant(route.query ?? 'page=1'), fc.constantFrom(...BAD_ESCAPES), fc.nat())
        .map(([query, escape, at]) => insertAt(query, escape, at)),
    },
  );

// ---- headers --------------------------------------------------------------------------------

const printable = fc
  .string({
    unit: fc.mapToConstant({ num: 0x7e - 0x20 + 1, build: (v) => String.fromCharCode(0x20 + v) }),
    maxLength: 60,
  })
  .map((s) => s.trim());
const goodAuthorization = fc.constantFrom(`Bearer ${DEMO_API_KEY}`, `Bearer ${OTHER_API_KEY}`);
const badAuthorization = fc.oneof(
  fc.constantFrom(
    '',
    'Bearer',
    'Bearer ',
    'bearer  x',
    'Basic Og==',
    basicAuth('demo-client', 'demo-client-secret'),
    'Basic !!!',
    `Token ${DEMO_API_KEY}`,
    DEMO_API_KEY,
    `Bearer ${DEMO_API_KEY} extra`,
    `Bearer ${'x'.repeat(5000)}`,
  ),
  printable,
  printable.map((s) => `Bearer ${s}`),
);
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=UTF-16',
  'application/json; charset=latin1',
  'application/json;charset',
  'application/merge-patch+json',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'text/plain',
  'text/plain;charset=UTF-8',
  'multipart/form-data; boundary=x',
  'application/xml',
  'text/json',
  '*/*',
  'application/',
  ';',
  'json',
  'application/json, text/plain',
];
const contentType = fc.oneof(fc.constantFrom(...CONTENT_TYPES), printable);
const jsonContentType = fc.constantFrom('application/json', 'application/json; charset=utf-8');
const headersArbitrary = (options: {
  authorization: fc.Arbitrary<string | null>;
  contentType: fc.Arbitrary<string | null>;
  extras: boolean;
}): fc.Arbitrary<Record<string, string>> =>
  fc
    .record({
      Authorization: options.authorization,
      'Content-Type': options.contentType,
      'Content-Encoding': options.extras
        ? fc.option(fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'compress', 'x-unknown', 'gzip, gzip'), {
            freq: 3,
          })
        : fc.constant(null),
      Accept: options.extras
        ? fc.option(fc.constantFrom('text/html', 'application/xml', '*/*', 'application/json;q=0', 'garbage'), {
            freq: 2,
          })
        : fc.constant(null),
      Cookie: options.extras
        ? fc.option(
            fc.constantFrom(
              `${SESSION_COOKIE}=garbage`,
              `${SESSION_COOKIE}=s%3Ax.y`,
              `${SESSION_COOKIE}=%`,
              `${CSRF_COOKIE}=%`,
              `${CSRF_COOKIE}=${'x'.repeat(40)}`,
              'a=b; ; =;',
            ),
            { freq: 2 },
          )
        : fc.constant(null),
      'X-HTTP-Method-Override': options.extras
        ? fc.option(fc.constantFrom('DELETE', 'PUT'), { freq: 4 })
        : fc.constant(null),
    })
    .map((headers) =>
      Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== null)),
    );

// ---- bodies ---------------------------------------------------------------------------------

const BAD_JSON = [
  '{',
  '{"a":',
  "{'a': 1}",
  'NaN',
  'undefined',
  '{"a": 1,}',
  '[1, 2',
  '"unterminated',
  '\u0000',
  '{"a": 1e400}',
  '{"page": -0}',
  '{"__proto__": {"polluted": true}}',
  '{"constructor": {"prototype": {"polluted": true}}}',
  ' ',
  'null',
  'true',
  '0',
  '""',
];
const fuzzedValue = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      1e308,
      -1e308,
      Number.MAX_SAFE_INTEGER + 2,
      -1,
      0,
      0.5,
      '',
      ' ',
      'away',
      'https://example.com/hook',
      'http://127.0.0.1:1/h',
      'lowLeak',
      [],
      {},
      null,
      true,
    ),
  },
);
const mutatedBody = (example: Record<string, unknown>): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc
      .tuple(fc.constantFrom(...Object.keys(example), 'extra', '__proto__', 'constructor'), fuzzedValue)
      .map(([key, value]) => ({ ...example, [key]: value })),
    fc.constant([example]),
    fc.constant(Object.values(example)),
    fuzzedValue,
  );
const textBody = (text: string): Buffer => Buffer.from(text, 'utf8');
// JSON text that JSON.stringify cannot produce: numbers beyond double precision, and nesting deep enough to overflow a recursive walk.
const HUGE_NUMBERS = [
  '1e400',
  '-1e400',
  '123456789012345678901234567890',
  '1.00000000000000000001',
  '-0',
  '1E+2',
  '0.0000000000000000000000001',
];
const rawJson = fc.oneof(
  fc.constantFrom(...HUGE_NUMBERS),
  fc
    .oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 3000, max: 20000 }))
    .map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc
    .oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 3000, max: 15000 }))
    .map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
);
const PLACEHOLDER = '\u0000raw\u0000';
const withRawField = (example: Record<string, unknown>): fc.Arbitrary<string> =>
  fc
    .tuple(fc.constantFrom(...Object.keys(example), 'extra', 'body'), rawJson)
    .map(([key, raw]) => JSON.stringify({ ...example, [key]: PLACEHOLDER }).replace(JSON.stringify(PLACEHOLDER), raw));
const badBody = (route: RouteShape): fc.Arbitrary<Buffer> =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: mutatedBody(route.body ?? {}).map((value) =>
        textBody((JSON.stringify(value) as string | undefined) ?? 'null'),
      ),
    },
    { weight: 3, arbitrary: withRawField(route.body ?? {}).map(textBody) },
    rawJson.map(textBody),
    fc.constantFrom(...BAD_JSON).map(textBody),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    fc
      .uint8Array({ minLength: 1, maxLength: 8 })
      .map((bytes) =>
        Buffer.concat([
          textBody('{"endpoint": "https://example.com/'),
          Buffer.from(bytes).map((b) => b | 0x80),
          textBody('", "type": "lowLeak"}'),
        ]),
      ),
    fc.constant(textBody(`{${Array.from({ length: 5000 }, (_, i) => `"k${i}": ${i}`).join(', ')}}`)),
    fc.constant(Buffer.alloc(100 * 1024 + 1, 'a')),
    fc
      .constantFrom(
        'endpoint=https://example.com/hook',
        'homeAway=away&homeAway=home',
        JSON.stringify(route.body ?? {}),
        'a'.repeat(2000),
      )
      .map(textBody),
  );

// ---- requests -------------------------------------------------------------------------------

const OTHER_METHODS: Method[] = ['get', 'post', 'put', 'delete', 'patch', 'head', 'options'];
const methodOf = (route: RouteShape): fc.Arbitrary<Method> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(route.method) },
    { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) },
  );
const validBody = (route: RouteShape): Buffer | null =>
  route.body === undefined ? null : textBody(JSON.stringify(route.body));

type Focus = 'path' | 'query' | 'headers' | 'body';

/** A request on any route, malformed in `focus` and mostly well-formed elsewhere. */
function fuzzedRequest(focus: Focus, ids: RouteIds): fc.Arbitrary<FuzzedRequest> {
  const anyRoute = fc.constantFrom(...ROUTES);
  // Bodies matter where a route reads one.
  const route =
    focus === 'body'
      ? fc.oneof(
          { weight: 1, arbitrary: anyRoute },
          { weight: 3, arbitrary: fc.constantFrom(...ROUTES.filter((r) => r.method !== 'get')) },
        )
      : anyRoute;
  return route.chain((route) => {
    const sometimes = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>): fc.Arbitrary<T> =>
      fc.oneof({ weight: 9, arbitrary: good }, { weight: 1, arbitrary: bad });
    return fc.record({
      method: methodOf(route),
      path:
        focus === 'path' ? badPath(route, ids) : sometimes(fc.constant(fillPath(route.path, ids)), badPath(route, ids)),
      query: focus === 'query' ? badQuery(route) : sometimes(fc.constant(route.query ?? null), badQuery(route)),
      headers:
        focus === 'headers'
          ? headersArbitrary({
              authorization: fc.option(fc.oneof(goodAuthorization, badAuthorization), { freq: 5 }),
              contentType: fc.option(contentType, { freq: 4 }),
              extras: true,
            })
          : headersArbitrary({
              authorization: sometimes(goodAuthorization, fc.option(badAuthorization)),
              contentType:
                focus === 'body'
                  ? fc.option(sometimes(jsonContentType, contentType), { freq: 6 })
                  : fc.constant('application/json'),
              extras: false,
            }),
      body: focus === 'body' ? badBody(route) : sometimes(fc.constant(validBody(route)), fc.option(badBody(route))),
    });
  });
}

// ---- the oracle -----------------------------------------------------------------------------

/** The path the client really sent (it escapes a few characters), in lower case as Express routes it. */
const pathSent = (res: request.Response): string =>
  (res as unknown as { req: { path: string } }).req.path.split('?')[0]!.toLowerCase();

function expectWellFormedAnswer(sent: FuzzedRequest, res: request.Response): void {
  expect(res.status).toBeLessThan(500);
  if (res.status < 400) return;
  const type = res.headers['content-type'] ?? '';
  const path = pathSent(res);
  if (type.startsWith('text/html')) {
    expect({ path, page: isPagePath(path) }).toEqual({ path, page: true });
    return;
  }
  expect(type).toMatch(/^application\/json/);
  if (sent.method === 'head') return;
  if (path === '/oauth2/token' || path === '/oauth2/revoke') {
    expect(res.body).toEqual({ error: expect.any(String), error_description: expect.stringMatching(/\S/) });
  } else if (path === '/mcp' && 'jsonrpc' in (res.body as object)) {
    // The MCP transport refuses what is not one MCP message with a JSON-RPC error, as MCP requires.
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: expect.any(Number), message: expect.stringMatching(/\S/) },
    });
  } else {
    expect(res.body).toMatchObject({ error: expect.any(String), message: expect.stringMatching(/\S/) });
  }
}

// ---- the runs -------------------------------------------------------------------------------

let t: TestApp;
let ids: RouteIds;
let server: Awaited<ReturnType<typeof listen>>;
let sentCount = 0;

beforeAll(async () => {
  ({ t, ids } = await appWithRouteIds());
  server = await listen(t.app);
});

afterAll(async () => {
  await server.close();
});

async function send(sent: FuzzedRequest): Promise<request.Response> {
  sentCount += 1;
  const url = `${sent.path}${sent.query === null ? '' : `?${sent.query}`}`;
  const req = request(server.baseUrl)
    [sent.method](url)
    .set(sent.headers)
    .ok(() => true);
  // Bytes as they are: no serialisation by the client, and no Content-Type added by it.
  const res =
    sent.body === null || sent.method === 'head'
      ? await req
      : await req.serialize((body: unknown) => body as string).send(sent.body as unknown as string);
  // A fault injected by a fuzzed request would make the next ones fail on purpose: take it away.
  if (res.status < 300 && pathSent(res).startsWith('/sandbox/faults')) {
    for (const key of [DEMO_API_KEY, OTHER_API_KEY])
      await request(server.baseUrl).delete('/sandbox/faults').set(bearer(key)).expect(200);
  }
  return res;
}

/** Both accounts still get their fixture locations, whole, and the documents are plain data. */
async function expectStoredStateIntact(): Promise<void> {
  for (const [key, fixture] of [
    [DEMO_API_KEY, DEMO_LOCATIONS],
    [OTHER_API_KEY, OTHER_LOCATIONS],
  ] as const) {
    const res = await request(t.app).get('/v1/locations').set(bearer(key)).expect(200);
    const locations = res.body.locations as Record<string, unknown>[];
    expect(locations.map((l) => l['locationId']).sort()).toEqual(fixture.map((l) => l.locationId).sort());
    for (const location of locations) {
      expect(Object.keys(location).sort()).toEqual(LOCATION_KEYS);
      expect(['home', 'away']).toContain(location['homeAway']);
      const devices = (location['devices'] as { deviceId: string }[]).map((d) => d.deviceId);
      expect(devices).toEqual(
        fixture.find((l) => l.locationId === location['locationId'])!.devices.map((d) => d.deviceId),
      );
    }
  }
  for (const accountId of [DEMO_ACCOUNT_ID, OTHER_ACCOUNT_ID]) {
    const doc = await docOf(t, accountId);
    expect(JSON.parse(JSON.stringify(doc))).toEqual(structuredClone(doc));
  }
  expect(Object.keys(Object.prototype)).toEqual([]);
  await request(t.app)
    .post(`/v1/locations/${DEMO_LOCATIONS[0]!.locationId}/subscriptions`)
    .set(bearer(DEMO_API_KEY))
    .send({ endpoint: 'https://example.com/after' })
    .expect(200);
}

/**
 * Each property sends its own requests and then checks the stored state, so any one of them
 * proves its claim alone (run with -t, or on its own by a mutation run) and in any order.
 */
const property = (focus: Focus) => async () => {
  const sentBefore = sentCount;
  await fc.assert(
    fc.asyncProperty(fuzzedRequest(focus, ids), async (sent) => {
      expectWellFormedAnswer(sent, await send(sent));
    }),
    { numRuns: RUNS_PER_PROPERTY, ...SEED },
  );
  expect(sentCount - sentBefore).toBe(RUNS_PER_PROPERTY);
  await expectStoredStateIntact();
};

describe(`${TOTAL_RUNS} fuzzed requests over every route`, () => {
  it('the table covers every route the app registers', () => {
    const normalise = (route: string): string => route.replace(/:\w+/g, ':').replace('{/}', '');
    const table = [...ROUTES, ...RELAY_ROUTES].map((route) => normalise(`${route.method.toUpperCase()} ${route.path}`));
    // Express keeps no mount points, so a registered `GET /locations` is looked for under each one.
    const missing = registeredRoutes(t.app)
      .map(normalise)
      .filter((route) => {
        const [method, path] = route.split(' ');
        return !['', '/v1', '/sandbox'].some((mount) => table.includes(`${method!} ${mount}${path!}`));
      });
    expect(missing).toEqual([]);
  });

  it(
    'malformed paths: no 5xx, every error well-formed, the stored state intact',
    property('path'),
    PROPERTY_TIMEOUT_MS,
  );
  it(
    'malformed queries: no 5xx, every error well-formed, the stored state intact',
    property('query'),
    PROPERTY_TIMEOUT_MS,
  );
  it(
    'malformed headers: no 5xx, every error well-formed, the stored state intact',
    property('headers'),
    PROPERTY_TIMEOUT_MS,
  );
  it(
    'malformed bodies: no 5xx, every error well-formed, the stored state intact',
    property('body'),
    PROPERTY_TIMEOUT_MS,
  );
});
