import express, { Router, type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import request from 'supertest';
import { z } from 'zod';

import { AppError } from '../../src/core/errors.js';
import { operation, type Operation, operationRouter } from '../../src/http/operation.js';
import { routeTable } from '../../src/http/route-table.js';

/** A route for the table to find: what the routing reads given, the rest of the description left plain. */
const route = <const P extends string, Q extends z.ZodType | undefined = undefined>(
  routing: Pick<Operation<P, Q>, 'operationId' | 'method' | 'path' | 'query' | 'trailingSlash'>,
): Operation<P, Q> =>
  operation({ summary: 's', tags: [], guard: 'none', responses: { 200: { description: 'd' } }, ...routing });

const item = route({ operationId: 'getItem', method: 'get', path: '/v1/items/{itemId}' });
const putItem = route({ operationId: 'putItem', method: 'put', path: '/v1/items/{itemId}' });
const list = route({
  operationId: 'listItems',
  method: 'get',
  path: '/v1/items',
  query: z.object({ page: z.string().optional() }),
});
const confirm = route({
  operationId: 'confirm',
  method: 'get',
  path: '/v1/items/{itemId}/confirm',
  trailingSlash: true,
});
const later = route({ operationId: 'later', method: 'post', path: '/v1/items/{otherId}' });
const failing = route({ operationId: 'failing', method: 'get', path: '/v1/failing/{id}' });

/** What a handler saw of the request, as the body. */
const seen: RequestHandler = (req, res) => {
  res.json({
    baseUrl: req.baseUrl,
    url: req.url,
    path: req.path,
    params: { ...req.params },
    route: (req.route as { path: string } | undefined)?.path,
    steps: res.locals['steps'],
  });
};
const step =
  (name: string): RequestHandler =>
  (_req, res, next) => {
    res.locals['steps'] = [...((res.locals['steps'] as string[] | undefined) ?? []), name];
    next();
  };

/**
 * The same routes served by Express's routers alone, with the table as the app's first
 * middleware, or with it also in front of the app's router (as app.ts mounts it).
 */
function appWith(mode: 'routers' | 'table' | 'front'): Express {
  const first = operationRouter('/v1');
  first.handle(list, (_input, req, res) => seen(req, res, () => undefined));
  first.handle(item, (_input, req, res) => seen(req, res, () => undefined), step('before'));
  first.handle(putItem, (_input, req, res) => seen(req, res, () => undefined));
  first.handle(confirm, (_input, req, res) => seen(req, res, () => undefined));
  const second = operationRouter('/v1');
  // Matches the paths of the first router's /items/{itemId}, which Express tries first.
  second.handle(later, (_input, req, res) => seen(req, res, () => undefined));
  second.handle(failing, async ({ params }) => {
    await Promise.resolve();
    throw new AppError(409, 'conflict', `failing ${params.id}`);
  });
  const routers = [first.done(), second.done()];
  const refuseMarked: RequestHandler = (req, _res, next) => {
    next(req.headers['x-refuse'] === undefined ? undefined : new AppError(400, 'refused', 'refused by the prelude'));
  };
  const prelude = [step('prelude'), refuseMarked];
  const chain = [step('chain')];
  const app = express();
  if (mode !== 'routers') {
    const table = routeTable({ mount: '/v1', prelude, chain, routers });
    app.use(table);
    if (mode === 'front') table.inFront(app);
  }
  app.use(prelude);
  const v1 = Router({ strict: true });
  v1.use(chain);
  for (const router of routers) v1.use(router);
  app.use('/v1', v1);
  app.use((req, res) => {
    res.status(404).json({ notFound: req.url, baseUrl: req.baseUrl });
  });
  const errors: ErrorRequestHandler = (error: unknown, req, res, _next) => {
    const status = error instanceof AppError ? error.status : 500;
    res
      .status(status)
      .set(error instanceof AppError ? (error.headers ?? {}) : {})
      .json({ error: String(error), url: req.url, baseUrl: req.baseUrl, params: { ...req.params } });
  };
  app.use(errors);
  return app;
}

const routersOnly = appWith('routers');
const tables = [
  ['as the first middleware', appWith('table')],
  ['in front of the router', appWith('front')],
] as const;

const requests: [method: 'get' | 'put' | 'post' | 'head' | 'options' | 'delete', path: string][] = [
  ['get', '/v1/items'],
  ['get', '/v1/items?page=2&page=3'],
  ['get', '/v1/items/a%20b'],
  ['get', '/v1/items/%E0%A4'],
  ['get', '/v1/ITEMS/x'],
  ['get', '/V1/items/x'],
  ['get', '/v1/items/x/'],
  ['get', '/v1/items//x'],
  ['head', '/v1/items/x'],
  ['options', '/v1/items/x'],
  ['put', '/v1/items/x'],
  ['post', '/v1/items/x'],
  ['delete', '/v1/items/x'],
  ['get', '/v1/items/x/confirm'],
  ['get', '/v1/items/x/confirm/'],
  ['get', '/v1/failing/7'],
  ['get', '/v1/nothing'],
  ['get', '/v1'],
  ['get', '/v1/'],
];

describe.each(tables)('the route table %s', (_mode, withTable) => {
  it.each(requests)('answers %s %s as the routers alone do', async (method, path) => {
    const fast = await request(withTable)[method](path);
    const slow = await request(routersOnly)[method](path);
    expect({ status: fast.status, allow: fast.headers['allow'], text: fast.text }).toEqual({
      status: slow.status,
      allow: slow.headers['allow'],
      text: slow.text,
    });
  });

  it('sets what the routers set: the mount, the decoded parameters and the route, after the prelude and the chain', async () => {
    const res = await request(withTable).get('/v1/items/a%20b?x=1').expect(200);
    expect(res.body).toEqual({
      baseUrl: '/v1',
      url: '/items/a%20b?x=1',
      path: '/items/a%20b',
      params: { itemId: 'a b' },
      route: '/items/:itemId',
      steps: ['prelude', 'chain', 'before'],
    });
  });

  it('hands an error to the error handler with the request as the routers leave it', async () => {
    const res = await request(withTable).get('/v1/failing/7').expect(409);
    expect(res.body).toMatchObject({ url: '/v1/failing/7', baseUrl: '' });
  });

  it('hands an error of the prelude to the error handler as the routers do', async () => {
    const fast = await request(withTable).get('/v1/items/x').set('x-refuse', '1').expect(400);
    const slow = await request(routersOnly).get('/v1/items/x').set('x-refuse', '1').expect(400);
    expect(fast.text).toBe(slow.text);
  });

  it('refuses a router that operationRouter did not make', () => {
    expect(() => routeTable({ mount: '/v1', prelude: [], chain: [], routers: [Router()] })).toThrow(
      'not made by operationRouter',
    );
  });
});

describe('the route table in front of the router', () => {
  /** How many requests reached the app's router, for a request to `path`. */
  async function routerWalks(path: string, expected: number): Promise<number> {
    const app = appWith('front');
    const router = (app as unknown as { router: { handle: (...args: unknown[]) => unknown } }).router;
    const handle = router.handle.bind(router);
    let walks = 0;
    router.handle = (...args: unknown[]) => {
      walks++;
      return handle(...args);
    };
    await request(app).get(path).expect(expected);
    return walks;
  }

  it('serves a route it finds without the app router, and leaves the rest and errors to it', async () => {
    expect(await routerWalks('/v1/items/x', 200)).toBe(0);
    expect(await routerWalks('/v1/nothing', 404)).toBe(1);
    expect(await routerWalks('/v1/failing/7', 409)).toBe(1);
  });
});
