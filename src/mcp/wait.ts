import { performance } from 'node:perf_hooks';

import { z } from 'zod';

import { ALERT_TYPES } from '../alerts/index.js';
import { invalidParameter } from '../core/errors.js';
import { accountChannel, type AccountEvent } from '../live/index.js';
import type { DeepReadonly, DeliveryKind, DeliveryRecord } from '../store/data.js';
import type { Store } from '../store/store.js';
import { Delivery, presentLogged, type DeliveriesDeps, type DeliveryView } from '../webhooks/index.js';
import type { McpWaits } from './waits.js';

const KINDS = Delivery.shape.kind.options as [DeliveryKind, ...DeliveryKind[]];
const STATES = ['pending', 'delivered', 'failed', 'finished'] as const;
/** How many of the newest deliveries that fit the filters the store can apply are looked through. */
const SCAN = 100;
const DEFAULT_TIMEOUT_SECONDS = 10;

const oneOf = <T extends string>(name: string, values: readonly [T, ...T[]], description: string) =>
  z
    .enum(values, {
      error: (issue) => `${name} must be one of ${values.join(', ')}; got ${JSON.stringify(issue.input)}`,
    })
    .optional()
    .meta({ description });

const id = (name: string, description: string) =>
  z
    .string({ error: `${name} must be a string` })
    .min(1, `${name} must not be empty`)
    .optional()
    .meta({ description });

/** The arguments of wait_for_delivery: which delivery, what state, how long. */
export const WaitForDeliveryInput = z
  .strictObject({
    kind: oneOf('kind', KINDS, 'Only deliveries of this kind.'),
    subscriptionId: id('subscriptionId', 'Only deliveries to this subscription.'),
    alertType: oneOf(
      'alertType',
      ALERT_TYPES as [string, ...string[]],
      'Only alert notifications of this alert type (implies kind alert).',
    ),
    active: z
      .boolean({ error: 'active must be true (the alert-start notification) or false (the alert end)' })
      .optional()
      .meta({ description: 'Only alert-start notifications (true) or alert ends (false); implies kind alert.' }),
    deliveryId: id('deliveryId', 'Exactly this delivery.'),
    state: oneOf(
      'state',
      STATES,
      'The state to wait for: pending, delivered, failed, or finished (delivered or failed), the default.',
    ),
    timeoutSeconds: z
      .number({ error: 'timeoutSeconds must be a number of seconds' })
      .positive('timeoutSeconds must be more than 0')
      .optional()
      .meta({
        description: `How long to wait at most, in seconds (default ${DEFAULT_TIMEOUT_SECONDS}; at most MAX_MCP_WAIT_SECONDS: 50, or 20 on a hosted sandbox).`,
      }),
  })
  .superRefine((input, ctx) => {
    if (
      (input.alertType !== undefined || input.active !== undefined) &&
      input.kind !== undefined &&
      input.kind !== 'alert'
    )
      ctx.addIssue({
        code: 'custom',
        path: ['kind'],
        message: `alertType and active are about alert notifications; kind ${input.kind} has neither: leave kind out, or set it to alert`,
      });
  });

export type DeliveryPredicate = z.output<typeof WaitForDeliveryInput>;

export interface WaitDeps extends DeliveriesDeps {
  store: Store;
  mcpWaits: McpWaits;
}

/** A delivery in brief, for the summary of the log. */
interface BriefDelivery {
  deliveryId: string;
  kind: string;
  state: string;
  subscriptionId: string | null;
  alertType: string | null;
  active: boolean | null;
  attempts: number;
  lastStatusCode: number | null;
  createdAt: string;
}

export type WaitAnswer =
  | { matched: true; waitedSeconds: number; delivery: DeliveryView }
  | {
      matched: false;
      waitedSeconds: number;
      /** Why it stopped: its time ran out, its caller went away, or the sandbox is stopping. */
      ended: 'timeout' | 'cancelled' | 'stopping';
      message: string;
      newestFitting: DeliveryView | null;
      log: { pending: number; delivered: number; failed: number; latest: BriefDelivery[] };
    };

/** The alert fields of an alert notification's payload. */
function alertOf(delivery: DeepReadonly<DeliveryRecord>): { type: string | null; active: boolean | null } {
  const payload = delivery.payload as { type?: unknown; active?: unknown } | null;
  return {
    type: delivery.kind === 'alert' && typeof payload?.type === 'string' ? payload.type : null,
    active: delivery.kind === 'alert' && typeof payload?.active === 'boolean' ? payload.active : null,
  };
}

function fits(delivery: DeepReadonly<DeliveryRecord>, p: DeliveryPredicate): boolean {
  const alert = alertOf(delivery);
  return (
    (p.deliveryId === undefined || delivery.deliveryId === p.deliveryId) &&
    (p.kind === undefined || delivery.kind === p.kind) &&
    (p.subscriptionId === undefined || delivery.subscriptionId === p.subscriptionId) &&
    (p.alertType === undefined || alert.type === p.alertType) &&
    (p.active === undefined || alert.active === p.active)
  );
}

const reached = (delivery: DeepReadonly<DeliveryRecord>, state: DeliveryPredicate['state']): boolean =>
  state === undefined || state === 'finished' ? delivery.state !== 'pending' : delivery.state === state;

/** The newest delivery of the account that fits the predicate (among the SCAN newest the store's filters leave). */
async function newestFitting(
  store: Store,
  accountId: string,
  p: DeliveryPredicate,
): Promise<DeepReadonly<DeliveryRecord> | null> {
  if (p.deliveryId !== undefined) {
    const delivery = await store.deliveries.get(accountId, p.deliveryId);
    return delivery && fits(delivery, p) ? delivery : null;
  }
  const kind: DeliveryKind | undefined =
    p.kind ?? (p.alertType !== undefined || p.active !== undefined ? 'alert' : undefined);
  const { items } = await store.deliveries.list(accountId, {
    ...(kind === undefined ? {} : { kind }),
    ...(p.subscriptionId === undefined ? {} : { subscriptionId: p.subscriptionId }),
    offset: 0,
    limit: SCAN,
  });
  return items.find((d) => fits(d, p)) ?? null;
}

function brief(delivery: DeepReadonly<DeliveryRecord>): BriefDelivery {
  const alert = alertOf(delivery);
  return {
    deliveryId: delivery.deliveryId,
    kind: delivery.kind,
    state: delivery.state,
    subscriptionId: delivery.subscriptionId,
    alertType: alert.type,
    active: alert.active,
    attempts: delivery.attempts.length,
    lastStatusCode: delivery.attempts.at(-1)?.statusCode ?? null,
    createdAt: delivery.createdAt,
  };
}

/** What the predicate asks for, in words: "alert notification (highLeak, start) to subscription s". */
function described(p: DeliveryPredicate): string {
  const alert = [p.alertType, p.active === undefined ? undefined : p.active ? 'start' : 'end'].filter(
    (part) => part !== undefined,
  );
  const kind = p.kind ?? (alert.length > 0 ? 'alert' : undefined);
  return [
    p.deliveryId === undefined ? `${kind ?? 'any'} delivery` : `delivery ${p.deliveryId}`,
    alert.length > 0 ? `(${alert.join(', ')})` : undefined,
    p.subscriptionId === undefined ? undefined : `to subscription ${p.subscriptionId}`,
  ]
    .filter((part) => part !== undefined)
    .join(' ');
}

/** Says what the log holds after a wait that found nothing: the newest delivery that fits, and the log's counts and latest entries. */
async function logSummary(
  deps: WaitDeps,
  accountId: string,
  p: DeliveryPredicate,
  waited: { seconds: number; ended: 'timeout' | 'cancelled' | 'stopping' },
): Promise<WaitAnswer> {
  const { store } = deps;
  const count = async (state: 'pending' | 'delivered' | 'failed'): Promise<number> =>
    (await store.deliveries.list(accountId, { state, offset: 0, limit: 0 })).total;
  const [newest, latest, pending, delivered, failed] = await Promise.all([
    newestFitting(store, accountId, p),
    store.deliveries.list(accountId, { offset: 0, limit: 5 }),
    count('pending'),
    count('delivered'),
    count('failed'),
  ]);
  const state = p.state ?? 'finished';
  const wanted = state === 'finished' ? 'delivered or failed' : state;
  const counts = `the log holds ${pending} pending, ${delivered} delivered and ${failed} failed deliveries`;
  const found = newest
    ? `The newest that fits, ${newest.deliveryId}, is ${newest.state} after ${attemptsIn(newest)}; ${counts}.`
    : `Nothing in the log fits; ${counts}. A notification goes to confirmed subscriptions only: subscribe your receiver (create_subscription), let it confirm, then start an alert (start_alert).`;
  const why =
    waited.ended === 'timeout'
      ? `within ${waited.seconds} s`
      : waited.ended === 'cancelled'
        ? 'before the call was cancelled'
        : 'before the sandbox began to stop';
  return {
    matched: false,
    waitedSeconds: waited.seconds,
    ended: waited.ended,
    message: `No ${described(p)} reached ${wanted} ${why}. ${found}`,
    newestFitting: newest ? presentLogged(deps, accountId, newest) : null,
    log: { pending, delivered, failed, latest: latest.items.map(brief) },
  };
}

const seconds = (ms: number): number => Math.round(ms / 100) / 10;

/** "2 attempts (the last: 500, status 500)". */
function attemptsIn(delivery: DeepReadonly<DeliveryRecord>): string {
  const count = `${delivery.attempts.length} attempt${delivery.attempts.length === 1 ? '' : 's'}`;
  const last = delivery.attempts.at(-1);
  if (!last) return count;
  return `${count} (the last: ${last.statusCode === null ? 'no answer' : String(last.statusCode)}${last.error === null ? '' : `, ${last.error}`})`;
}

/**
 * wait_for_delivery: waits until the newest delivery of the account that fits the predicate is
 * in the state asked for, or `timeoutSeconds` pass (at most MAX_MCP_WAIT_SECONDS). Woken by the
 * account's delivery events on the store's bus (published by whichever replica made the attempt),
 * not by polling; the newest fitting delivery is looked at once before waiting and after each event.
 */
export async function waitForDelivery(
  deps: WaitDeps,
  accountId: string,
  predicate: DeliveryPredicate,
  signal: AbortSignal,
): Promise<WaitAnswer> {
  const max = deps.mcpWaits.limits.maxSeconds;
  const timeoutSeconds = predicate.timeoutSeconds ?? Math.min(DEFAULT_TIMEOUT_SECONDS, max);
  if (timeoutSeconds > max)
    throw invalidParameter(
      'timeoutSeconds',
      `timeoutSeconds must be at most ${max} on this sandbox (MAX_MCP_WAIT_SECONDS=${max}); got ${timeoutSeconds}: wait again after it answers`,
    );
  const started = performance.now();
  const outcome: WaitOutcome = { ended: 'timeout', matched: null, failure: null };
  let finish: () => void = () => undefined;
  const over = new Promise<void>((resolve) => (finish = resolve));
  const end = (why: WaitOutcome['ended']) => (): void => {
    outcome.ended = why;
    finish();
  };
  const release = deps.mcpWaits.hold(accountId, end('stopping'));
  const onAbort = end('cancelled');
  const looks = new Looks(async () => {
    const newest = await newestFitting(deps.store, accountId, predicate);
    if (newest && reached(newest, predicate.state)) {
      outcome.matched = newest;
      finish();
      return true;
    }
    return false;
  });
  let unsubscribe: (() => Promise<void>) | null = null;
  let timer: NodeJS.Timeout | undefined;
  try {
    // Subscribed before the first look, so an attempt recorded in between still wakes it.
    unsubscribe = await deps.store.events.subscribe(accountChannel(accountId), (message) => {
      const type = (message as AccountEvent).type;
      if (type === 'delivery' || type === 'reset')
        looks.request().catch((error: unknown) => {
          outcome.failure = error instanceof Error ? error : new Error(String(error));
          finish();
        });
    });
    if (!(await looks.request())) {
      timer = setTimeout(finish, timeoutSeconds * 1000);
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
      await over;
    }
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    release();
    await unsubscribe?.().catch(() => undefined);
  }
  if (outcome.failure) throw outcome.failure;
  const waitedMs = performance.now() - started;
  if (outcome.matched)
    return {
      matched: true,
      waitedSeconds: seconds(waitedMs),
      delivery: presentLogged(deps, accountId, outcome.matched),
    };
  return logSummary(deps, accountId, predicate, {
    seconds: outcome.ended === 'timeout' ? timeoutSeconds : seconds(waitedMs),
    ended: outcome.ended,
  });
}

interface WaitOutcome {
  ended: 'timeout' | 'cancelled' | 'stopping';
  matched: DeepReadonly<DeliveryRecord> | null;
  failure: Error | null;
}

/**
 * Looks at the log one at a time: a look asked for while one runs makes one more after it (the
 * event may have come after that look read the log), until a look finds what it looks for.
 */
class Looks {
  #running: Promise<boolean> | null = null;
  /** Looks asked for so far. */
  #asked = 0;

  constructor(private readonly look: () => Promise<boolean>) {}

  request(): Promise<boolean> {
    this.#asked++;
    if (this.#running) return this.#running;
    const run = async (): Promise<boolean> => {
      try {
        let found = false;
        let seen = 0;
        do {
          seen = this.#asked;
          found = await this.look();
        } while (!found && this.#asked !== seen);
        return found;
      } finally {
        this.#running = null;
      }
    };
    this.#running = run();
    return this.#running;
  }
}
