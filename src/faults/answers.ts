import type { z } from 'zod';

import { accountNowMs } from '../clock/index.js';
import type { Ids } from '../core/ids.js';
import type { DeepReadonly, FaultRecord } from '../store/data.js';
import { queueFault, type FaultsDeps } from './faults.js';
import type { FaultCreate } from './operations.js';

/** A fault as GET /sandbox/faults shows it. */
export function presentFault(fault: DeepReadonly<FaultRecord>) {
  const { accountId: _a, remaining, retryAfter, ...shown } = fault;
  return { ...shown, retryAfter: retryAfter ?? null, times: remaining };
}

/** Queues a fault, or sets the rate limit, as POST /sandbox/faults does; answers what it answers (with 201). */
export async function addFault(
  deps: FaultsDeps & { ids: Ids },
  accountId: string,
  input: z.output<typeof FaultCreate>,
) {
  if (input.rateLimit !== undefined) {
    const limit = input.rateLimit;
    await deps.store.accounts.update(accountId, (d) => {
      d.rateLimit = { ...limit, anchorMs: accountNowMs(deps.clock, d.clock) };
    });
    return { rateLimit: limit };
  }
  const faultId = deps.ids.uuid();
  const fault = await deps.store.accounts.update(accountId, (d) =>
    queueFault(d, input, { faultId, nowMs: accountNowMs(deps.clock, d.clock), maxFaults: deps.config.limits.faults }),
  );
  return presentFault(fault);
}

/** Removes every fault and the rate limit, as DELETE /sandbox/faults does: how many were removed (the rate limit counts as one). */
export async function clearFaults(deps: Pick<FaultsDeps, 'store'>, accountId: string): Promise<{ removed: number }> {
  const removed = await deps.store.accounts.update(accountId, (d) => {
    const count = d.faults.length + (d.rateLimit === null ? 0 : 1);
    d.faults = [];
    d.rateLimit = null;
    return count;
  });
  return { removed };
}
