import type { RequestHandler } from 'express';

import { AppError } from '../core/errors.js';
import type { Deps } from '../deps.js';
import { authOf } from '../http/request-context.js';
import type { Data, DeepReadonly, FaultRecord } from '../store/data.js';

/** Whether a fault's method and path (exact, or a prefix ending in `*`) match the request. */
export function faultMatches(fault: DeepReadonly<FaultRecord>, method: string, path: string): boolean {
  if (fault.method !== null && fault.method !== method) return false;
  if (fault.path === null) return true;
  return fault.path.endsWith('*') ? path.startsWith(fault.path.slice(0, -1)) : fault.path === path;
}

function takeFault(data: Data, accountId: string, method: string, path: string): FaultRecord | null {
  const index = data.faults.findIndex((f) => f.accountId === accountId && faultMatches(f, method, path));
  if (index < 0) return null;
  const fault = data.faults[index]!;
  if (fault.remaining !== null) {
    fault.remaining -= 1;
    if (fault.remaining <= 0) data.faults.splice(index, 1);
  }
  return structuredClone(fault);
}

/** Counts the request in the account's rate-limit window; returns the seconds to wait when over the limit. */
function countRequest(data: Data, accountId: string, nowMs: number): number | null {
  const limit = data.rateLimits.find((r) => r.accountId === accountId);
  if (!limit) return null;
  const windowMs = limit.perSeconds * 1000;
  if (nowMs >= limit.windowStartMs + windowMs || nowMs < limit.windowStartMs) {
    limit.windowStartMs = nowMs;
    limit.count = 0;
  }
  limit.count += 1;
  if (limit.count <= limit.requests) return null;
  return Math.max(1, Math.ceil((limit.windowStartMs + windowMs - nowMs) / 1000));
}

/**
 * Injected faults and the rate limit, applied to /v1 requests after authentication.
 * SANDBOX: production has its own limits; these are set by the partner to test error paths.
 */
export function applyFaults(deps: Deps): RequestHandler {
  return async (req, res, next) => {
    const { accountId, internal } = authOf(res);
    if (internal) return next();
    const path = req.baseUrl + req.path;
    const hasAny = deps.store.read((d) => d.faults.some((f) => f.accountId === accountId) || d.rateLimits.some((r) => r.accountId === accountId));
    if (!hasAny) return next();
    const nowMs = deps.clocks.now(accountId).getTime();
    const { fault, retryAfter } = await deps.store.write((d) => ({ retryAfter: countRequest(d, accountId, nowMs), fault: takeFault(d, accountId, req.method, path) }));
    if (retryAfter !== null) {
      throw new AppError(429, 'rate_limited', `Too many requests for this account's rate limit; retry after ${retryAfter} s`, {
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
    if (!fault) return next();
    if (fault.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    if (fault.status === null) return next();
    res.status(fault.status).json(fault.body ?? { error: 'injected_fault', message: `Fault injected through /sandbox/faults: ${fault.status} for ${req.method} ${path}` });
  };
}
