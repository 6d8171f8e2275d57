import { hostname } from 'node:os';

import { accountNow, accountNowMs, type DueWork } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import { isServiceUnavailable, LimitError } from '../core/errors.js';
import type { Ids } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import { publishAccountEvent } from '../live/index.js';
import type { DeliveryAttempt, DeliveryRecord } from '../store/data.js';
import { originOf } from '../store/derived.js';
import type { Store } from '../store/store.js';
import type { AddressRefusal } from './address-policy.js';
import { assessAnswer } from './assess.js';
import { logAttempt, type RecordedAttempt } from './attempt-log.js';
import { afterAttempt, cancelled, newDelivery, type AttemptOutcome, type NewDelivery } from './delivery-transitions.js';
import type { WebhookSender } from './sender.js';
import { DeliverySlots, signal } from './slots.js';

export interface DispatcherOptions {
  timeoutMs: number;
  maxAttempts: number;
  backoffMs: number;
  concurrency: number;
}

export interface DispatcherDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  sender: WebhookSender;
  /** Told of each recorded attempt (metrics, readiness). */
  onAttempt?: (attempt: RecordedAttempt) => void;
  /** Told each time due deliveries wait because their account holds its whole share of the slots (metrics). */
  onShareWait?: () => void;
  /**
   * Whether the account may not read the confirmation tokens sent to `target` (a hosted sandbox,
   * an endpoint that is not the account's own relay): then the answers to its confirmations and
   * receiver checks are recorded with those tokens hidden. Never, when absent.
   */
  tokenHidden?: (accountId: string, target: string) => boolean;
}

/** Headers of every webhook, the same on each retry of one delivery, so receivers can drop duplicates. */
export const DELIVERY_ID_HEADER = 'X-Sandbox-Delivery-Id';
export const ATTEMPT_HEADER = 'X-Sandbox-Attempt';

// While another replica holds due deliveries of an account, runDue waits for them this often.
const CLAIMED_ELSEWHERE_POLL_MS = 50;
/** An account waiting for its share of the slots is logged at most this often. */
const SHARE_WARNING_INTERVAL_MS = 60_000;

/**
 * The durable delivery queue. Deliveries live in the store with the virtual time their next
 * attempt is due (`dueAtMs`, on the account's clock); `runDue` sends what is due. Nothing is
 * scheduled with per-delivery timers, so advancing a clock or restarting the process needs
 * no special handling: the next `runDue` finds the work. Each attempt is claimed in the store
 * first, so with several replicas exactly one of them makes it.
 *
 * At most `concurrency` attempts are in flight in this process, shared between accounts and
 * origins (see DeliverySlots), so that a slow or hanging endpoint (each attempt is cut at
 * `timeoutMs`), or one account's fan-out, never holds up the others.
 */
export class Dispatcher implements DueWork {
  /** Who this process is, in the store's claims. */
  readonly owner: string;
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #slots: DeliverySlots;
  readonly #running = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  /** Per account, what a kick resolves: a round waiting for slots looks again at once for the new work. */
  readonly #kicked = new Map<string, ReturnType<typeof signal>>();
  readonly #shareWarnedAt = new Map<string, number>();
  readonly #leaseMs: number;
  #stopped = false;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly options: DispatcherOptions,
  ) {
    this.#slots = new DeliverySlots(options.concurrency);
    // Long enough for one attempt and its recording; a replica that dies holds nothing longer.
    this.#leaseMs = options.timeoutMs + 10_000;
    this.owner = `${hostname()}:${process.pid}:${deps.ids.secret(6)}`;
  }

  /** A new pending delivery, due at `nowMs` on the account clock. Store it with the change that caused it, then `kick`. */
  build(input: NewDelivery, nowMs: number): DeliveryRecord {
    return newDelivery(input, {
      deliveryId: this.deps.ids.uuid(),
      nowMs,
      createdAtMs: this.deps.clock.now().getTime(),
    });
  }

  /** Stores deliveries due now on the account clock and starts sending them without waiting for the answers. */
  async enqueue(accountId: string, inputs: readonly NewDelivery[]): Promise<DeliveryRecord[]> {
    const doc = await this.deps.store.accounts.get(accountId);
    const nowMs = doc ? accountNowMs(this.deps.clock, doc.clock) : this.deps.clock.now().getTime();
    const records = inputs.map((input) => this.build(input, nowMs));
    await this.deps.store.deliveries.add(accountId, records);
    this.kick(accountId);
    return records;
  }

  /** Starts the account's due deliveries in the background; several kicks while it runs make one more round. */
  kick(accountId: string): void {
    // Once stopped, the round ends before it starts anything (runDue's loop).
    if (this.#running.has(accountId)) {
      this.#again.add(accountId);
      this.#kicked.get(accountId)?.fire();
      this.#kicked.delete(accountId);
      return;
    }
    const run = this.runDue(accountId)
      .catch((error: unknown) => {
        if (!isServiceUnavailable(error)) this.deps.logger.error('webhook dispatch failed', { accountId, err: error });
      })
      .finally(() => {
        this.#running.delete(accountId);
        if (this.#again.delete(accountId)) this.kick(accountId);
      });
    this.#running.set(accountId, run);
  }

  /** Kicks the accounts that have work due now (the background interval finds them). */
  kickAll(accountIds: readonly string[]): void {
    for (const accountId of accountIds) this.kick(accountId);
  }

  /**
   * Attempts every delivery of the account that is due now on its clock (and those that fall
   * due on the way, such as receiver checks), and resolves when each attempt is recorded,
   * including attempts another replica made meanwhile.
   */
  async runDue(accountId: string): Promise<void> {
    const mine = new Set<Promise<void>>();
    let waitedMs = 0;
    // Whether the last look at the queue found more due than the account's free slots could take.
    let leftDue = false;
    while (!this.#stopped) {
      const doc = await this.deps.store.accounts.get(accountId);
      if (!doc) break;
      const nowMs = accountNowMs(this.deps.clock, doc.clock);
      const free = this.#slots.freeFor(accountId);
      const fullOrigins = this.#slots.fullOrigins();
      // The deliveries of origins that hold all their slots are left out, so they never fill the answer.
      const candidates = free > 0 ? await this.deps.store.deliveries.due(accountId, nowMs, free * 4, fullOrigins) : [];
      // Pick what the shares allow, then claim them all at once (a networked store pipelines the
      // claims), and only while still due: another replica may have attempted and rescheduled one
      // since `due` answered.
      const picked = this.#pick(candidates, free);
      if (free > 0) leftDue = picked.length === free && candidates.length > free;
      const claimed = await Promise.all(
        picked.map((c) => this.deps.store.deliveries.claim(accountId, c.deliveryId, this.owner, this.#leaseMs, nowMs)),
      );
      let startedNow = 0;
      for (const [i, candidate] of picked.entries()) {
        if (!claimed[i]) continue;
        const origin = originOf(candidate.target);
        if (this.#isStopped() || this.#inFlight.has(candidate.deliveryId) || !this.#slots.fits(accountId, origin)) {
          // Stopping, already under way here, or other rounds took the slots meanwhile: back to the queue at once, not at the lease's end.
          await this.deps.store.deliveries.release(accountId, candidate.deliveryId, this.owner);
          continue;
        }
        const attempt = this.#start(accountId, candidate, origin);
        mine.add(attempt);
        void attempt.finally(() => mine.delete(attempt));
        startedNow++;
      }
      if (startedNow > 0) continue;
      // Deliveries left waiting because the account holds its whole share: counted, and told to the operator.
      if (free <= 0 && leftDue && this.#slots.accountShareFull(accountId)) this.#noteShareWait(accountId);
      // An attempt of this round may add work (a receiver check) or free a slot. Held back by a
      // share, any slot given back may be this account's turn; otherwise only its own attempts
      // and new work (a kick) can change what it may start, and other accounts' ends need not wake it.
      if (mine.size > 0) {
        await this.#progress(accountId, free <= 0 || fullOrigins.length > 0 ? null : mine);
        continue;
      }
      const next = await this.deps.store.deliveries.nextDueMs(accountId);
      if (next === null || next > nowMs) break;
      // Due now, yet nothing started: a share of the slots is in use here, or another replica holds the deliveries.
      if (this.#inFlight.size > 0) {
        await this.#progress(accountId, null);
        continue;
      }
      if (waitedMs >= this.#leaseMs) break;
      // Due, but claimed by another replica: its attempt will be recorded within the lease.
      await new Promise((resolve) => setTimeout(resolve, CLAIMED_ELSEWHERE_POLL_MS));
      waitedMs += CLAIMED_ELSEWHERE_POLL_MS;
    }
    this.#kicked.delete(accountId);
    await Promise.all(mine);
  }

  /** The candidates that fit the account's free slots and the origins' shares now, in order. */
  #pick(candidates: readonly DeliveryRecord[], free: number): DeliveryRecord[] {
    const picked: DeliveryRecord[] = [];
    const perOrigin = new Map<string, number>();
    for (const candidate of candidates) {
      if (picked.length >= free) break;
      const origin = originOf(candidate.target);
      const busy = this.#slots.heldByOrigin(origin) + (perOrigin.get(origin) ?? 0);
      if (this.#inFlight.has(candidate.deliveryId) || busy >= this.#slots.originLimit) continue;
      perOrigin.set(origin, (perOrigin.get(origin) ?? 0) + 1);
      picked.push(candidate);
    }
    return picked;
  }

  /** Resolves when one of `attempts` ends (any slot given back, when null), or when the account is kicked (new work). */
  #progress(accountId: string, attempts: ReadonlySet<Promise<void>> | null): Promise<void> {
    let kicked = this.#kicked.get(accountId);
    if (!kicked) {
      kicked = signal();
      this.#kicked.set(accountId, kicked);
    }
    return Promise.race([...(attempts ?? [this.#slots.whenFreed()]), kicked.promise]);
  }

  /** Counts a wait for the account's share, and tells the operator (at most once a minute per account). */
  #noteShareWait(accountId: string): void {
    this.deps.onShareWait?.();
    const nowMs = this.deps.clock.now().getTime();
    const last = this.#shareWarnedAt.get(accountId);
    if (last !== undefined && nowMs - last < SHARE_WARNING_INTERVAL_MS) return;
    if (this.#shareWarnedAt.size >= 10_000) this.#shareWarnedAt.clear();
    this.#shareWarnedAt.set(accountId, nowMs);
    this.deps.logger.warn('webhook deliveries of an account wait for its share of the delivery slots', {
      accountId,
      inFlight: this.#slots.heldBy(accountId),
      share: this.#slots.shareOf(accountId),
      concurrency: this.options.concurrency,
    });
  }

  /** When the account's next pending attempt falls due (ms on its clock), or null. */
  nextDueMs(accountId: string): Promise<number | null> {
    return this.deps.store.deliveries.nextDueMs(accountId);
  }

  /** Starts no new attempts from now on (shutdown); attempts in flight finish, and pending deliveries stay stored. */
  stop(): void {
    this.#stopped = true;
  }

  /** Read through a call: `stop()` may have run while a round awaited, which a read of the field in place does not show the type checker. */
  #isStopped(): boolean {
    return this.#stopped;
  }

  /** Resolves when no attempt is in flight and no round is running. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0 || this.#running.size > 0) {
      await Promise.all([...this.#inFlight.values(), ...this.#running.values()]);
    }
  }

  /**
   * Runs until nothing is due now and nothing is in flight (optionally for one account):
   * retries that fall due later on the account clock stay pending. Tests await this.
   */
  async drain(accountId?: string): Promise<void> {
    for (let round = 0; round < 1000 && !this.#stopped; round++) {
      const accounts =
        accountId === undefined
          ? await this.deps.store.accounts.due(this.deps.clock.now().getTime(), 10_000)
          : [accountId];
      await Promise.all(accounts.map((id) => this.runDue(id)));
      await this.idle();
      const left =
        accountId === undefined
          ? await this.deps.store.accounts.due(this.deps.clock.now().getTime(), 1)
          : await this.#dueNow(accountId);
      if (left.length === 0) return;
    }
  }

  async #dueNow(accountId: string): Promise<string[]> {
    const doc = await this.deps.store.accounts.get(accountId);
    if (!doc) return [];
    const next = await this.nextDueMs(accountId);
    return next !== null && next <= accountNowMs(this.deps.clock, doc.clock) ? [accountId] : [];
  }

  #start(accountId: string, delivery: DeliveryRecord, origin: string): Promise<void> {
    this.#slots.take(accountId, origin);
    const promise = this.#attempt(accountId, delivery)
      .catch((error: unknown) => {
        this.deps.logger.error('webhook attempt crashed', { deliveryId: delivery.deliveryId, err: error });
      })
      .finally(() => {
        this.#inFlight.delete(delivery.deliveryId);
        this.#slots.give(accountId, origin);
      });
    this.#inFlight.set(delivery.deliveryId, promise);
    return promise;
  }

  async #attempt(accountId: string, delivery: DeliveryRecord): Promise<void> {
    const { store, clock } = this.deps;
    const { deliveryId, kind } = delivery;
    const before = await store.accounts.get(accountId);
    if (!before) return;
    // Production stops notifying a subscription once it is deleted.
    // Token deliveries (OAuth) belong to no subscription (subscriptionId null).
    if (
      delivery.subscriptionId !== null &&
      !before.subscriptions.some((s) => s.subscriptionId === delivery.subscriptionId)
    ) {
      await store.deliveries.update(accountId, deliveryId, (record) => void Object.assign(record, cancelled(record)));
      return;
    }
    const at = accountNow(clock, before.clock);
    const { outcome, latencyMs, blocked } = await this.#send(accountId, delivery, at);
    // The clock may have moved during the attempt: the retry counts from the account's now after it.
    const after = await store.accounts.get(accountId);
    const nowMs = after ? accountNowMs(clock, after.clock) : at.getTime();
    const recorded = await store.deliveries.update(
      accountId,
      deliveryId,
      (record) => Object.assign(record, afterAttempt(record, outcome, nowMs, this.options)).state,
    );
    if (recorded === null) return;
    this.deps.onAttempt?.({
      accountId,
      kind,
      state: recorded,
      ok: outcome.ok,
      latencyMs,
      ...(blocked ? { blockedRange: blocked.range } : {}),
    });
    if (delivery.checkReceiverAfter && delivery.attempts.length === 0 && !blocked)
      await this.#checkReceiver(delivery, nowMs);
    await publishAccountEvent(store, accountId, {
      type: 'delivery',
      deliveryId,
      kind,
      state: recorded,
      attempt: outcome.attempt.at,
    });
  }

  /** Makes one attempt of the delivery (at `at` on the account clock), logs it, and says what it came to. */
  async #send(
    accountId: string,
    delivery: DeliveryRecord,
    at: Date,
  ): Promise<{ outcome: AttemptOutcome; latencyMs: number; blocked: AddressRefusal | undefined }> {
    const { deliveryId, kind, method, target } = delivery;
    const hide = await this.#tokensToHide(accountId, delivery);
    const response = await this.deps.sender.send({
      method,
      url: target,
      ...(method === 'POST' ? { body: delivery.payload } : {}),
      headers: {
        [DELIVERY_ID_HEADER]: delivery.sentAsId ?? deliveryId,
        [ATTEMPT_HEADER]: String(delivery.attempts.length + 1),
      },
      timeoutMs: this.options.timeoutMs,
      accountId,
      ...(hide.length === 0 ? {} : { hide }),
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
    const blocked = response.blocked;
    logAttempt(this.deps.logger, { deliveryId, accountId, kind, method, target, ...attempt }, ok, blocked);
    return { outcome: { attempt, ok, refused: blocked !== undefined }, latencyMs: response.latencyMs, blocked };
  }

  /**
   * The confirmation tokens an answer to this delivery must not bring back to the account: the
   * one it carries and the live ones of its subscription (an endpoint may echo the token of the
   * POST it just had in the GET check that follows). Only for confirmations and receiver checks,
   * the deliveries of a subscription whose token is still of use.
   */
  async #tokensToHide(accountId: string, delivery: DeliveryRecord): Promise<string[]> {
    const { kind, subscriptionId, target } = delivery;
    if (kind !== 'confirmation' && kind !== 'receiver_check') return [];
    if (subscriptionId === null || this.deps.tokenHidden?.(accountId, target) !== true) return [];
    const tokens = new Set<string>();
    const carried = (delivery.payload as { confirmationToken?: unknown } | null)?.confirmationToken;
    if (typeof carried === 'string') tokens.add(carried);
    const doc = await this.deps.store.accounts.get(accountId);
    for (const t of doc?.confirmationTokens ?? []) if (t.subscriptionId === subscriptionId) tokens.add(t.token);
    return [...tokens];
  }

  /**
   * SANDBOX: production requires the endpoint to answer GET as well as POST with JSON; the sandbox
   * checks it once the confirmation POST has had its first attempt, and records the outcome in the log.
   */
  async #checkReceiver(confirmation: DeliveryRecord, nowMs: number): Promise<void> {
    const { accountId, deliveryId, subscriptionId, locationId, target } = confirmation;
    const check = this.build(
      { accountId, kind: 'receiver_check', subscriptionId, locationId, method: 'GET', target, payload: null },
      nowMs,
    );
    try {
      await this.deps.store.deliveries.add(accountId, [check]);
    } catch (error) {
      // The account's queue is full (MAX_PENDING_DELIVERIES): the check is left out, the attempt stays recorded.
      if (!(error instanceof LimitError)) throw error;
      this.deps.logger.warn('receiver check not queued: the account has too many deliveries waiting', {
        deliveryId,
        accountId,
        limit: error.limit,
      });
    }
  }
}
