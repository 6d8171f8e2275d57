import type { AccountClocks } from '../clock/account-clock.js';
import type { Ids } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import type { DeliveryAttempt, DeliveryKind, DeliveryRecord } from '../store/data.js';
import type { Store } from '../store/store.js';
import type { WebhookSender } from './sender.js';

export interface NewDelivery {
  accountId: string;
  kind: DeliveryKind;
  subscriptionId: string | null;
  locationId: string | null;
  method?: 'POST' | 'GET';
  target: string;
  payload: unknown;
}

export interface DispatcherOptions {
  timeoutMs: number;
  maxAttempts: number;
  backoffMs: number;
  concurrency: number;
}

/**
 * The durable delivery queue. Deliveries live in the store with the virtual time their next
 * attempt is due (`dueAtMs`, on the account's clock); `runDue` sends what is due. Nothing is
 * scheduled with per-delivery timers, so advancing a clock or restarting the process needs
 * no special handling: the next `runDue` finds the work.
 */
export class Dispatcher {
  readonly #inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly deps: { store: Store; clocks: AccountClocks; ids: Ids; logger: Logger; sender: WebhookSender },
    private readonly options: DispatcherOptions,
  ) {}

  /** Stores a delivery due now and starts sending it without waiting for the answer. */
  async enqueue(input: NewDelivery): Promise<DeliveryRecord> {
    const now = this.deps.clocks.now(input.accountId);
    const record: DeliveryRecord = {
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
    };
    await this.deps.store.write((d) => {
      d.deliveries.push(record);
    });
    void this.runDue();
    return structuredClone(record);
  }

  /** Starts every delivery that is due (optionally of one account) and resolves when those attempts are recorded. */
  async runDue(accountId?: string): Promise<void> {
    const due = this.deps.store.read((d) =>
      d.deliveries
        .filter(
          (x) =>
            x.state === 'pending' &&
            x.dueAtMs !== null &&
            (accountId === undefined || x.accountId === accountId) &&
            !this.#inFlight.has(x.deliveryId) &&
            x.dueAtMs <= this.deps.clocks.now(x.accountId).getTime(),
        )
        .sort((a, b) => (a.dueAtMs ?? 0) - (b.dueAtMs ?? 0))
        .map((x) => x.deliveryId),
    );
    const started: Promise<void>[] = [];
    for (const deliveryId of due) {
      if (this.#inFlight.size >= this.options.concurrency) break;
      started.push(this.#start(deliveryId));
    }
    await Promise.all(started);
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

  /** Resolves when no attempt is in flight. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight.values());
  }

  #start(deliveryId: string): Promise<void> {
    const promise = this.#attempt(deliveryId).finally(() => {
      this.#inFlight.delete(deliveryId);
      // A freed slot may let a waiting delivery go.
      void this.runDue();
    });
    this.#inFlight.set(deliveryId, promise);
    return promise;
  }

  async #attempt(deliveryId: string): Promise<void> {
    const delivery = this.deps.store.read((d) => d.deliveries.find((x) => x.deliveryId === deliveryId));
    if (!delivery) return;
    const at = this.deps.clocks.now(delivery.accountId);
    const response = await this.deps.sender.send({
      method: delivery.method,
      url: delivery.target,
      ...(delivery.method === 'POST' ? { body: delivery.payload } : {}),
      timeoutMs: this.options.timeoutMs,
    });
    const ok = response.statusCode !== null && response.statusCode >= 200 && response.statusCode < 300;
    const warnings = ok && !response.bodyIsJson ? ['the answer was 2xx but its body is not JSON; production requires JSON answers'] : [];
    const attempt: DeliveryAttempt = {
      at: at.toISOString(),
      statusCode: response.statusCode,
      latencyMs: response.latencyMs,
      error: ok ? null : (response.error ?? `HTTP ${response.statusCode}`),
      responseExcerpt: response.responseExcerpt,
      warnings,
    };
    const logFields = { deliveryId, accountId: delivery.accountId, kind: delivery.kind, target: delivery.target, ...attempt };
    if (ok) this.deps.logger.info('webhook attempt', logFields);
    else this.deps.logger.warn('webhook attempt failed', logFields);

    await this.deps.store.write((d) => {
      const record = d.deliveries.find((x) => x.deliveryId === deliveryId);
      if (!record) return;
      record.attempts.push(attempt);
      if (ok) {
        record.state = 'delivered';
        record.dueAtMs = null;
        record.nextAttemptAt = null;
      } else if (record.attempts.length >= this.options.maxAttempts) {
        record.state = 'failed';
        record.dueAtMs = null;
        record.nextAttemptAt = null;
      } else {
        // Doubling delays: backoff, 2 x backoff, 4 x backoff, ... on the account's clock.
        const delay = this.options.backoffMs * 2 ** (record.attempts.length - 1);
        const nowMs = this.deps.clocks.now(record.accountId).getTime();
        record.dueAtMs = nowMs + delay;
        record.nextAttemptAt = new Date(nowMs + delay).toISOString();
      }
    });
  }
}
