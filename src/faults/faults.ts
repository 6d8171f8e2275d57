import type { NextFunction, Request, RequestHandler, Response } from 'express';

import { accountNowMs } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import { AppError, capReached } from '../core/errors.js';
import { authOf } from '../http/request-context.js';
import { requestPath } from '../http/request-path.js';
import type { AccountDoc, DeepReadonly, FaultRecord, RateLimitSetting } from '../store/data.js';
import type { Store } from '../store/store.js';

/** Set on every answer made by an injected fault. */
export const FAULT_HEADER = 'X-Sandbox-Fault';

export interface FaultsDeps {
  store: Store;
  clock: Clock;
  config: { readonly limits: { readonly faults: number } };
}

/** Whether a fault's method and path (exact, or a prefix ending in `*`) match the request. */
export function faultMatches(fault: DeepReadonly<FaultRecord>, method: string, path: string): boolean {
  if (fault.method !== null && fault.method !== method) return false;
  if (fault.path === null) return true;
  return fault.path.endsWith('*') ? path.startsWith(fault.path.slice(0, -1)) : fault.path === path;
}

export interface NewFault {
  method?: string | undefined;
  path?: string | undefined;
  status?: number | undefined;
  body?: unknown;
  delayMs?: number | undefined;
  retryAfter?: number | undefined;
  /** Matching requests it answers; null until deleted; default 1. */
  times?: number | null | undefined;
}

/**
 * Queues a fault in the account's document, after the ones queued before, or before them with
 * `first` (a readiness drill's faults answer the very next requests). An account holding
 * `maxFaults` (MAX_FAULTS; 0 = no cap) gets a 409 instead.
 */
export function queueFault(
  doc: AccountDoc,
  input: NewFault,
  meta: { faultId: string; nowMs: number; maxFaults: number; first?: boolean },
): FaultRecord {
  if (meta.maxFaults > 0 && doc.faults.length >= meta.maxFaults) {
    throw capReached(
      'MAX_FAULTS',
      `This account has ${doc.faults.length} faults queued, the most this sandbox allows (MAX_FAULTS=${meta.maxFaults}); delete them (DELETE /sandbox/faults) before queueing another`,
    );
  }
  const record: FaultRecord = {
    faultId: meta.faultId,
    accountId: doc.account.accountId,
    createdAt: new Date(meta.nowMs).toISOString(),
    method: input.method?.toUpperCase() ?? null,
    path: input.path ?? null,
    status: input.status ?? null,
    body: input.body ?? null,
    delayMs: input.delayMs ?? 0,
    retryAfter: input.retryAfter ?? null,
    remaining: input.times === undefined ? 1 : input.times,
  };
  if (meta.first) doc.faults.unshift(record);
  else doc.faults.push(record);
  return record;
}

/** Takes one use of the first fault that matches the request (dropping a spent one); null if none does. */
export function takeFault(doc: AccountDoc, method: string, path: string): FaultRecord | null {
  const index = doc.faults.findIndex((f) => faultMatches(f, method, path));
  const fault = doc.faults[index];
  if (fault === undefined) return null;
  if (fault.remaining !== null) {
    fault.remaining -= 1;
    if (fault.remaining <= 0) doc.faults.splice(index, 1);
  }
  return { ...fault };
}

/**
 * Counts the request in the account's fixed window (windows start at the limit's anchor on the
 * account clock) and returns the seconds to wait when over the limit. The count lives in the
 * store's counters, so with replicas it is one limit whichever replica answers: one counter per
 * account, whatever the windows (a partner who moves the account's clock from window to window
 * would otherwise leave a counter behind in each, for as long as a window lasts).
 */
async function countRequest(
  store: Store,
  accountId: string,
  limit: DeepReadonly<RateLimitSetting>,
  nowMs: number,
): Promise<number | null> {
  const windowMs = limit.perSeconds * 1000;
  const window = Math.floor((nowMs - limit.anchorMs) / windowMs);
  const count = await store.counters.incrementInWindow(`rate:${accountId}`, `${limit.anchorMs}/${window}`, windowMs);
  if (count <= limit.requests) return null;
  return Math.max(1, Math.ceil((limit.anchorMs + (window + 1) * windowMs - nowMs) / 1000));
}

/**
 * Injected faults and the rate limit, applied to /v1 requests after authentication.
 * SANDBOX: production has its own limits; these are set by the partner to test error paths.
 */
export function applyFaults(deps: FaultsDeps): RequestHandler {
  const apply = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const { accountId, doc } = authOf(res);
    const path = requestPath(req);
    const nowMs = accountNowMs(deps.clock, doc.clock);
    const retryAfter = doc.rateLimit === null ? null : await countRequest(deps.store, accountId, doc.rateLimit, nowMs);
    if (retryAfter !== null) {
      throw new AppError(
        429,
        'rate_limited',
        `Too many requests for this account's rate limit; retry after ${retryAfter} s`,
        {
          headers: { 'Retry-After': String(retryAfter) },
        },
      );
    }
    // Only a request some fault matches costs a store write.
    if (!doc.faults.some((f) => faultMatches(f, req.method, path))) {
      next();
      return;
    }
    const fault = await deps.store.accounts.update(accountId, (d) => takeFault(d, req.method, path));
    if (!fault) {
      next();
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    if (fault.status === null) {
      next();
      return;
    }
    // SANDBOX: marks the answer as injected, so partners' logs (and the sandbox's own response checks) can tell it from a real one.
    res.set(FAULT_HEADER, 'injected');
    if (fault.retryAfter !== undefined && fault.retryAfter !== null) res.set('Retry-After', String(fault.retryAfter));
    res.status(fault.status).json(
      fault.body ?? {
        error: 'injected_fault',
        message: `Fault injected through /sandbox/faults: ${fault.status} for ${req.method} ${path}`,
      },
    );
  };
  return (req, res, next) => {
    const { internal, doc } = authOf(res);
    if (internal) {
      next();
      return;
    }
    // The usual case, without a limit or faults, passes on at once, with no promise made on the hot path.
    if (doc.rateLimit === null && doc.faults.length === 0) {
      next();
      return;
    }
    return apply(req, res, next);
  };
}
