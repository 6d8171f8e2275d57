import { Router } from 'express';

import { accountNowMs } from '../clock/index.js';
import { invalidParameter } from '../core/errors.js';
import type { Ids } from '../core/ids.js';
import { authOf } from '../http/request-context.js';
import { allowOnly } from '../http/routing.js';
import type { FaultRecord } from '../store/data.js';
import type { FaultsDeps } from './faults.js';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'];
const MAX_DELAY_MS = 60_000;
const FAULT_FIELDS = ['method', 'path', 'status', 'body', 'delayMs', 'times'];

function parseInt(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidParameter(name, `${name} must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}`);
  }
  return value;
}

type FaultInput = Omit<FaultRecord, 'faultId' | 'accountId' | 'createdAt'>;

export function parseFault(body: Record<string, unknown>): FaultInput {
  const unknown = Object.keys(body).filter((k) => !FAULT_FIELDS.includes(k));
  if (unknown.length > 0) throw invalidParameter(unknown[0]!, `Unknown field ${JSON.stringify(unknown[0])}; a fault takes ${FAULT_FIELDS.join(', ')}, or rateLimit alone`);
  const { method, path } = body;
  if (method !== undefined && (typeof method !== 'string' || !METHODS.includes(method.toUpperCase()))) {
    throw invalidParameter('method', `method must be one of ${METHODS.join(', ')}`);
  }
  if (path !== undefined && (typeof path !== 'string' || !path.startsWith('/v1/'))) {
    throw invalidParameter('path', 'path must be a /v1/... path, optionally ending in * to match a prefix (faults apply to /v1 requests)');
  }
  const status = body['status'] === undefined ? null : parseInt(body['status'], 'status', 400, 599);
  const delayMs = body['delayMs'] === undefined ? 0 : parseInt(body['delayMs'], 'delayMs', 0, MAX_DELAY_MS);
  if (status === null && delayMs === 0) throw invalidParameter('status', 'status (400-599) is required, unless delayMs makes this a latency-only fault');
  const remaining = body['times'] === undefined ? 1 : body['times'] === null ? null : parseInt(body['times'], 'times', 1, 1_000_000);
  return {
    method: typeof method === 'string' ? method.toUpperCase() : null,
    path: typeof path === 'string' ? path : null,
    status,
    body: body['body'] ?? null,
    delayMs,
    remaining,
  };
}

function parseRateLimit(value: unknown): { requests: number; perSeconds: number } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidParameter('rateLimit', 'rateLimit must be an object such as {"requests": 10, "perSeconds": 60}');
  }
  const { requests, perSeconds, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw invalidParameter('rateLimit', 'rateLimit takes only requests and perSeconds');
  return { requests: parseInt(requests, 'rateLimit.requests', 1, 1_000_000), perSeconds: parseInt(perSeconds, 'rateLimit.perSeconds', 1, 86_400) };
}

/** /sandbox/faults: queue failures for the account's next matching /v1 requests, or set a rate limit. */
export function faultsRouter(deps: FaultsDeps & { ids: Ids }): Router {
  const router = Router({ strict: true });

  router.get('/faults', (_req, res) => {
    const { doc } = authOf(res);
    res.json({
      faults: doc.faults.map(({ accountId: _a, remaining, ...f }) => ({ ...f, times: remaining })),
      rateLimit: doc.rateLimit === null ? null : { requests: doc.rateLimit.requests, perSeconds: doc.rateLimit.perSeconds },
    });
  });

  router.post('/faults', async (req, res) => {
    const { accountId } = authOf(res);
    const body: unknown = req.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw invalidParameter('body', 'The request body must be a JSON object such as {"status": 503, "times": 2} or {"rateLimit": {"requests": 10, "perSeconds": 60}}');
    }
    const fields = body as Record<string, unknown>;
    if ('rateLimit' in fields) {
      if (Object.keys(fields).length > 1) throw invalidParameter('rateLimit', 'rateLimit is set on its own, without fault fields');
      const limit = parseRateLimit(fields['rateLimit']);
      await deps.store.accounts.update(accountId, (d) => {
        d.rateLimit = { ...limit, anchorMs: accountNowMs(deps.clock, d.clock) };
      });
      res.status(201).json({ rateLimit: limit });
      return;
    }
    const input = parseFault(fields);
    const faultId = deps.ids.uuid();
    const fault = await deps.store.accounts.update(accountId, (d) => {
      const record: FaultRecord = { faultId, accountId, createdAt: new Date(accountNowMs(deps.clock, d.clock)).toISOString(), ...input };
      d.faults.push(record);
      return record;
    });
    const { accountId: _a, remaining, ...shown } = fault;
    res.status(201).json({ ...shown, times: remaining });
  });

  router.delete('/faults', async (_req, res) => {
    const { accountId } = authOf(res);
    const removed = await deps.store.accounts.update(accountId, (d) => {
      const count = d.faults.length + (d.rateLimit === null ? 0 : 1);
      d.faults = [];
      d.rateLimit = null;
      return count;
    });
    res.json({ removed });
  });
  allowOnly(router, '/faults', ['GET', 'POST', 'DELETE']);

  return router;
}
