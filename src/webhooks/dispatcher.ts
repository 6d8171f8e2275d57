import type { AccountClocks } from '../clock/account-clock.js';
import type { Ids } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import type { Data, DeepReadonly, DeliveryAttempt, DeliveryKind, DeliveryRecord } from '../store/data.js';
import type { Store } from '../store/store.js';
import { assessAnswer } from './assess.js';
import { pruneDeliveryLog } from './log.js';
import type { WebhookSender } from './sender.js';

export interface NewDelivery {
  accountId: string;
  kind: DeliveryKind;
  subscriptionId: string | null;
  locationId: string | null;
  method?: 'POST' | 'GET';
  target: string;
  payload: unknown;
  /** The delivery this one sends again. */
  redeliveryOf?: string;
  /** Hold this delivery until that one has had its first attempt. */
  afterDeliveryId?: string;
}

export interface DispatcherOptions {
  timeoutMs: number;
  maxAttempts: number;
  backoffMs: number;
  concurrency: number;
  /** Finished deliveries kept per account (default 1,000); pending ones are always kept. */
  logLimit?: number;
}

const DEFAULT_LOG_LIMIT = 1000;

/** The receiver check is a diagnostic, not a message: one attempt, no retries. */
const maxAttemptsOf = (kind: DeliveryKind, configured: number): number => (kind === 'receiver_check' ? 1 : configured);

const origins = new Map<string, string>();
const MAX_CACHED_ORIGINS = 10_000;

/** The origin a target counts against for the per-origin bound (memoised: parsing URLs is the hot path). */
function originOf(target: string): string {
  let origin = origins.get(target);
  if (origin === undefined) {
    origin = URL.canParse(target) ? new URL(target).origin : target;
    if (origins.size >= MAX_CACHED_ORIGINS) origins.clear();
    origins.set(target, origin);
  }
  return origin;
}

/**
 * The durable delivery queue. Deliveries live in the store with the virtual time their next
 * attempt is due (`dueAtMs`, on the account's clock); `runDue` sends what is due. Nothing is
 * scheduled with per-delivery timers, so advancing a clock or restarting the process needs
 * no special handling: the next `runDue` finds the work.
 *
 * At most `concurrency` attempts are in flight, and at most a quarter of them to one origin,
 * so a slow or hanging endpoint (each attempt is cut at `timeoutMs`) never holds up the others.
 */
export class Dispatcher {
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #perOrigin = new Map<string, number>();
  readonly #finishedSincePrune = new Map<string, number>();
  readonly #perOriginLimit: number;
  #pumpScheduled = false;
  #stopped = false;
  readonly #logLimit: number;

  constructor(
    private readonly deps: { store: Store; clocks: AccountClocks; ids: Ids; logger: Logger; sender: WebhookSender },
    private readonly options: DispatcherOptions,
  ) {
    this.#perOriginLimit = Math.max(1, Math.ceil(options.concurrency / 4));
    this.#logLimit = options.logLimit ?? DEFAULT_LOG_LIMIT;
  }

  /**
   * A new pending delivery, due now on the account clock. It is not stored: push it in your own
   * `store.write` (so it is saved atomically with the change that caused it), then call `kick()`.
   */
  build(input: NewDelivery): DeliveryRecord {
    const now = this.deps.clocks.now(input.accountId);
    return {
      deliveryId: this.deps.ids.uuid(),
      accountId: input.accountId,
      kind: input.kind,
      subscriptionId: input.subscriptionId,
      locationId: input.locationId,
      method: input.method ?? 'POST',
      target: input.target,
      payload: input.payload,
      state: 'pending',
      attempts: [],
      createdAt: now.toISOString(),
      nextAttemptAt: now.toISOString(),
      dueAtMs: now.getTime(),
      ...(input.redeliveryOf === undefined ? {} : { redeliveryOf: input.redeliveryOf }),
      ...(input.afterDeliveryId === undefined ? {} : { afterDeliveryId: input.afterDeliveryId }),
    };
  }

  /** Stores a delivery due now and starts sending it without waiting for the answer. */
  async enqueue(input: NewDelivery): Promise<DeliveryRecord> {
    const [record] = await this.enqueueMany([input]);
    if (!record) throw new Error('enqueueMany returned nothing');
    return record;
  }

  /** Stores several deliveries in one write and starts sending them. */
  async enqueueMany(inputs: readonly NewDelivery[]): Promise<DeliveryRecord[]> {
    const records = inputs.map((input) => this.build(input));
    await this.deps.store.write((d) => {
      d.deliveries.push(...records);
    });
    this.kick();
    return records.map((r) => structuredClone(r));
  }

  /** Starts whatever is due, without waiting; call after storing deliveries yourself. */
  kick(): void {
    this.#pump();
  }

  /**
   * Runs every delivery that is due now (optionally of one account), in due-time order, and
   * resolves when each of them has had its attempt recorded, including those that had to wait
   * for a free slot.
   */
  async runDue(accountId?: string): Promise<void> {
    const targets = this.deps.store.read((d) => {
      const eligible = this.#eligible(d, accountId, true);
      return eligible.map((x) => ({ deliveryId: x.deliveryId, attempts: x.attempts.length }));
    });
    if (targets.length === 0) return;
    const waiting = new Map(targets.map((t) => [t.deliveryId, t.attempts]));
    for (;;) {
      this.#pump();
      this.deps.store.read((d) => {
        for (const x of d.deliveries) {
          const before = waiting.get(x.deliveryId);
          if (before !== undefined && !this.#inFlight.has(x.deliveryId) && (x.attempts.length > before || x.state !== 'pending')) {
            waiting.delete(x.deliveryId);
          }
        }
        // Deliveries removed meanwhile (a reset, the bounded log) are no longer awaited.
        if (waiting.size > 0) {
          const present = new Set(d.deliveries.map((x) => x.deliveryId));
          for (const id of waiting.keys()) if (!present.has(id)) waiting.delete(id);
        }
      });
      if (waiting.size === 0) return;
      const ours = [...waiting.keys()].flatMap((id) => this.#inFlight.get(id) ?? []);
      const any = [...this.#inFlight.values()];
      if (ours.length === 0 && any.length === 0) return; // nothing can move them now (e.g. the clock went back)
      await Promise.race(ours.length > 0 ? ours : any);
    }
  }

  /** When the account's next pending attempt falls due (ms on its clock), or null. */
  nextDueMs(accountId: string): number | null {
    return this.deps.store.read((d) =>
      d.deliveries.reduce<number | null>(
        (min, x) => (x.accountId === accountId && x.state === 'pending' && x.dueAtMs !== null && (min === null || x.dueAtMs < min) ? x.dueAtMs : min),
        null,
      ),
    );
  }

  /** Starts no new attempts from now on (shutdown); attempts in flight finish, and pending deliveries stay stored. */
  stop(): void {
    this.#stopped = true;
  }

  /** Resolves when no attempt is in flight and none is about to start. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0 || this.#pumpScheduled) {
      if (this.#inFlight.size > 0) await Promise.all(this.#inFlight.values());
      else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Runs until nothing is due now and nothing is in flight (optionally for one account):
   * retries that fall due later on the account clock stay pending. Tests await this.
   */
  async drain(accountId?: string): Promise<void> {
    for (;;) {
      await this.runDue(accountId);
      await this.idle();
      if (this.#stopped) return;
      const due = this.deps.store.read((d) => this.#eligible(d, accountId, false).length);
      if (due === 0 && this.#inFlight.size === 0) return;
    }
  }

  /** Pending deliveries due now, oldest due first; in-flight ones included only when asked. */
  #eligible(d: DeepReadonly<Data>, accountId: string | undefined, includeInFlight: boolean): DeepReadonly<DeliveryRecord>[] {
    const nows = new Map<string, number>();
    const nowOf = (account: string): number => {
      let now = nows.get(account);
      if (now === undefined) {
        now = this.deps.clocks.now(account).getTime();
        nows.set(account, now);
      }
      return now;
    };
    let byId: Map<string, DeepReadonly<DeliveryRecord>> | null = null;
    const waitsForAnother = (afterId: string): boolean => {
      byId ??= new Map(d.deliveries.map((x) => [x.deliveryId, x]));
      const first = byId.get(afterId);
      return first !== undefined && first.state === 'pending' && first.attempts.length === 0;
    };
    return d.deliveries
      .filter(
        (x) =>
          x.state === 'pending' &&
          x.dueAtMs !== null &&
          (accountId === undefined || x.accountId === accountId) &&
          (includeInFlight || !this.#inFlight.has(x.deliveryId)) &&
          x.dueAtMs <= nowOf(x.accountId) &&
          (x.afterDeliveryId === undefined || !waitsForAnother(x.afterDeliveryId)),
      )
      .sort((a, b) => (a.dueAtMs ?? 0) - (b.dueAtMs ?? 0));
  }

  #schedulePump(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  /** Starts due deliveries while there are free slots, respecting the per-origin bound. */
  #pump(): void {
    if (this.#stopped || this.#inFlight.size >= this.options.concurrency) return;
    const candidates = this.deps.store.read((d) => this.#eligible(d, undefined, false).map((x) => ({ deliveryId: x.deliveryId, target: x.target })));
    for (const { deliveryId, target } of candidates) {
      if (this.#inFlight.size >= this.options.concurrency) break;
      const origin = originOf(target);
      if ((this.#perOrigin.get(origin) ?? 0) >= this.#perOriginLimit) continue;
      this.#start(deliveryId, origin);
    }
  }

  #start(deliveryId: string, origin: string): void {
    this.#perOrigin.set(origin, (this.#perOrigin.get(origin) ?? 0) + 1);
    const promise = this.#attempt(deliveryId)
      .catch((error: unknown) => {
        this.deps.logger.error('webhook attempt crashed', { deliveryId, err: error });
      })
      .finally(() => {
        this.#inFlight.delete(deliveryId);
        const left = (this.#perOrigin.get(origin) ?? 1) - 1;
        if (left > 0) this.#perOrigin.set(origin, left);
        else this.#perOrigin.delete(origin);
        // A freed slot may let a waiting delivery go; slots freed in the same turn share one scan.
        this.#schedulePump();
      });
    this.#inFlight.set(deliveryId, promise);
  }

  async #attempt(deliveryId: string): Promise<void> {
    const found = this.deps.store.read((d) => {
      const index = d.deliveries.findIndex((x) => x.deliveryId === deliveryId);
      return index < 0 ? undefined : { index, delivery: d.deliveries[index] };
    });
    if (!found?.delivery) return;
    const { delivery } = found;
    const { accountId, kind, method, target } = delivery;
    const at = this.deps.clocks.now(accountId);
    const response = await this.deps.sender.send({
      method,
      url: target,
      ...(method === 'POST' ? { body: delivery.payload } : {}),
      timeoutMs: this.options.timeoutMs,
    });
    const { ok, error, warnings } = assessAnswer(kind, method, response);
    const attempt: DeliveryAttempt = {
      at: at.toISOString(),
      statusCode: response.statusCode,
      latencyMs: response.latencyMs,
      error,
      responseExcerpt: response.responseExcerpt,
      warnings,
    };
    const logFields = { deliveryId, accountId, kind, method, target, ...attempt };
    if (ok && warnings.length === 0) this.deps.logger.info('webhook attempt', logFields);
    else this.deps.logger.warn(ok ? 'webhook attempt delivered with warnings' : 'webhook attempt failed', logFields);

    const pruned = await this.deps.store.write((d) => {
      // The position seen before the attempt is usually still right; the log may have been pruned meanwhile.
      const hinted = d.deliveries[found.index];
      const record = hinted?.deliveryId === deliveryId ? hinted : d.deliveries.find((x) => x.deliveryId === deliveryId);
      if (!record) return false;
      record.attempts.push(attempt);
      // Cancelled while the attempt was on its way: keep the attempt, not a new schedule.
      if (record.state !== 'pending') return false;
      if (ok) {
        record.state = 'delivered';
        record.dueAtMs = null;
        record.nextAttemptAt = null;
      } else if (record.attempts.length >= maxAttemptsOf(record.kind, this.options.maxAttempts)) {
        record.state = 'failed';
        record.dueAtMs = null;
        record.nextAttemptAt = null;
      } else {
        // Doubling delays: backoff, 2 x backoff, 4 x backoff, ... on the account's clock.
        const delay = this.options.backoffMs * 2 ** (record.attempts.length - 1);
        const nowMs = this.deps.clocks.now(record.accountId).getTime();
        record.dueAtMs = nowMs + delay;
        record.nextAttemptAt = new Date(nowMs + delay).toISOString();
        return false;
      }
      return this.#countFinished(d, record.accountId);
    });
    if (pruned) this.deps.logger.debug('delivery log pruned', { accountId });
  }

  /** Prunes the account's log once it has grown a tenth past its limit, so pruning costs little per delivery. */
  #countFinished(d: Data, accountId: string): boolean {
    const count = (this.#finishedSincePrune.get(accountId) ?? 0) + 1;
    if (count < Math.max(1, Math.ceil(this.#logLimit / 10))) {
      this.#finishedSincePrune.set(accountId, count);
      return false;
    }
    this.#finishedSincePrune.set(accountId, 0);
    return pruneDeliveryLog(d, accountId, this.#logLimit) > 0;
  }
}
