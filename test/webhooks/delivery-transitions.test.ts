import type { DeliveryAttempt, DeliveryRecord } from '../../src/store/data.js';
import { endedDelivery, storedDelivery } from '../../src/store/derived.js';
import {
  afterAttempt,
  attemptsAllowed,
  cancelled,
  newDelivery,
  redeliveryOf,
  retryDelayMs,
  SUBSCRIPTION_DELETED_NOTE,
  type RetryPolicy,
} from '../../src/webhooks/delivery-transitions.js';
import { presentDelivery } from '../../src/webhooks/presenter.js';
import { givenDelivery, iso, T0 } from '../store/builders.js';

const POLICY: RetryPolicy = { maxAttempts: 3, backoffMs: 1000 };
const attemptAt = (ms: number, statusCode: number | null = 500): DeliveryAttempt => ({
  at: iso(ms),
  statusCode,
  latencyMs: 4,
  error: statusCode === 200 ? null : `HTTP ${String(statusCode)}`,
  responseExcerpt: null,
  warnings: [],
});
const failedAt = (ms: number) => ({ attempt: attemptAt(ms), ok: false, refused: false });
const deliveredAt = (ms: number) => ({ attempt: attemptAt(ms, 200), ok: true, refused: false });

/** The record after each of `outcomes`, made at the times given, as the dispatcher records them. */
function through(record: DeliveryRecord, outcomes: { at: number; ok: boolean }[], policy = POLICY): DeliveryRecord[] {
  const seen: DeliveryRecord[] = [];
  let current = record;
  for (const { at, ok } of outcomes) {
    current = afterAttempt(current, ok ? deliveredAt(at) : failedAt(at), at, policy);
    seen.push(current);
  }
  return seen;
}

describe('newDelivery: the first state', () => {
  it('is pending, due at once on the account clock, with no attempts and only the optional fields it was given', () => {
    const record = newDelivery(
      {
        accountId: 'a',
        kind: 'alert',
        subscriptionId: 's',
        locationId: 'l',
        target: 'https://example.com/h',
        payload: { n: 1 },
      },
      { deliveryId: 'd', nowMs: T0, createdAtMs: 7 },
    );
    expect(record).toStrictEqual({
      deliveryId: 'd',
      accountId: 'a',
      kind: 'alert',
      subscriptionId: 's',
      locationId: 'l',
      method: 'POST',
      target: 'https://example.com/h',
      payload: { n: 1 },
      state: 'pending',
      attempts: [],
      createdAt: iso(T0),
      dueAtMs: T0,
      createdAtMs: 7,
    });
  });

  it('keeps what a redelivery, a duplicate, a drill and a receiver check add', () => {
    const original = givenDelivery('a', 'first', { state: 'delivered' });
    const again = newDelivery(
      { ...redeliveryOf(original, { sameDeliveryId: true, drill: 'duplicate-delivery' }), checkReceiverAfter: true },
      { deliveryId: 'second', nowMs: T0 + 5, createdAtMs: 9 },
    );
    expect(again).toMatchObject({
      deliveryId: 'second',
      redeliveryOf: 'first',
      sentAsId: 'first',
      drill: 'duplicate-delivery',
      checkReceiverAfter: true,
      dueAtMs: T0 + 5,
      state: 'pending',
    });
    expect(again.payload).toEqual(original.payload);
    expect(again.payload).not.toBe(original.payload);
  });
});

describe('afterAttempt', () => {
  it('a 2xx delivers it: no attempt falls due any more', () => {
    const [after] = through(givenDelivery('a', 'd'), [{ at: T0 + 10, ok: true }]);
    expect(after).toMatchObject({ state: 'delivered', dueAtMs: null });
    expect(after!.attempts).toEqual([attemptAt(T0 + 10, 200)]);
  });

  it('a failure schedules a retry after the backoff, doubling, counted from the time the attempt was recorded', () => {
    const seen = through(givenDelivery('a', 'd'), [
      { at: T0, ok: false },
      { at: T0 + 60_000, ok: false },
    ]);
    expect(seen.map((r) => [r.state, r.dueAtMs, r.attempts.length])).toEqual([
      ['pending', T0 + 1000, 1],
      ['pending', T0 + 60_000 + 2000, 2],
    ]);
  });

  it('gives up after the last attempt allowed: failed, nothing due', () => {
    const seen = through(givenDelivery('a', 'd'), [
      { at: T0, ok: false },
      { at: T0 + 1000, ok: false },
      { at: T0 + 3000, ok: false },
    ]);
    expect(seen.at(-1)).toMatchObject({ state: 'failed', dueAtMs: null });
    expect(seen.at(-1)!.attempts).toHaveLength(3);
    expect(seen.slice(0, -1).every((r) => r.state === 'pending')).toBe(true);
  });

  it('a refused address fails it at the first attempt, attempts left or not', () => {
    const after = afterAttempt(
      givenDelivery('a', 'd'),
      { attempt: attemptAt(T0, null), ok: false, refused: true },
      T0,
      POLICY,
    );
    expect(after).toMatchObject({ state: 'failed', dueAtMs: null });
  });

  it('a receiver check has one attempt: a failed one fails it', () => {
    const [after] = through(givenDelivery('a', 'd', { kind: 'receiver_check' }), [{ at: T0, ok: false }]);
    expect(after).toMatchObject({ state: 'failed', dueAtMs: null });
    expect(attemptsAllowed('receiver_check', POLICY)).toBe(1);
    expect(attemptsAllowed('alert', POLICY)).toBe(3);
  });

  it('a delivery no longer pending (cancelled during the attempt) keeps the attempt and its state', () => {
    const gone = cancelled(givenDelivery('a', 'd'));
    const after = afterAttempt(gone, deliveredAt(T0), T0, POLICY);
    expect(after).toMatchObject({ state: 'failed', dueAtMs: null, note: SUBSCRIPTION_DELETED_NOTE });
    expect(after.attempts).toHaveLength(1);
  });

  it('leaves the record it is given as it was', () => {
    const record = givenDelivery('a', 'd');
    const before = structuredClone(record);
    afterAttempt(record, failedAt(T0), T0, POLICY);
    afterAttempt(record, deliveredAt(T0), T0, POLICY);
    expect(record).toStrictEqual(before);
  });
});

describe('the retry schedule', () => {
  it('waits backoff, 2 x, 4 x, ... and schedules exactly maxAttempts - 1 retries', () => {
    const policy = { maxAttempts: 6, backoffMs: 250 };
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, policy))).toEqual([250, 500, 1000, 2000, 4000]);
    const outcomes = Array.from({ length: 6 }, () => ({ at: T0, ok: false }));
    const seen = through(givenDelivery('a', 'd'), outcomes, policy);
    expect(seen.filter((r) => r.state === 'pending')).toHaveLength(5);
    expect(seen.at(-1)!.state).toBe('failed');
  });

  it('with no backoff, retries fall due at once', () => {
    const [after] = through(givenDelivery('a', 'd'), [{ at: T0, ok: false }], { maxAttempts: 2, backoffMs: 0 });
    expect(after).toMatchObject({ state: 'pending', dueAtMs: T0 });
  });

  it('at the largest settings, a retry is never due past the latest instant a date can hold, so its time can be shown', () => {
    const policy = { maxAttempts: 100, backoffMs: 86_400_000 };
    let record = givenDelivery('a', 'd');
    record = { ...record, attempts: Array.from({ length: 98 }, () => attemptAt(T0)) };
    const after = afterAttempt(record, failedAt(T0), T0, policy);
    expect(after.state).toBe('pending');
    expect(after.dueAtMs).toBe(8.64e15);
    expect(presentDelivery(after).nextAttemptAt).toBe('+275760-09-13T00:00:00.000Z');
  });
});

describe('cancelled', () => {
  it('fails a pending delivery with the note', () => {
    expect(cancelled(givenDelivery('a', 'd'))).toMatchObject({
      state: 'failed',
      dueAtMs: null,
      note: SUBSCRIPTION_DELETED_NOTE,
    });
    expect(cancelled(givenDelivery('a', 'd'), 'why')).toMatchObject({ note: 'why' });
  });

  it('leaves a finished one as it was', () => {
    const delivered = givenDelivery('a', 'd', { state: 'delivered' });
    expect(cancelled(delivered)).toStrictEqual(delivered);
  });
});

describe('nextAttemptAt, as the API shows it', () => {
  it('is the due time of a pending delivery as an instant, and null once it is over', () => {
    const pending = givenDelivery('a', 'd', { dueAtMs: T0 + 1500 });
    expect(presentDelivery(pending).nextAttemptAt).toBe(iso(T0 + 1500));
    expect(presentDelivery(endedDelivery(pending, 'delivered')).nextAttemptAt).toBeNull();
    expect(presentDelivery(endedDelivery(pending, 'failed', 'n')).nextAttemptAt).toBeNull();
  });

  it('of a record stored by an older version, carrying its own copy, is still derived from dueAtMs; reading drops the copy', () => {
    const older = { ...givenDelivery('a', 'd', { dueAtMs: T0 + 1500 }), nextAttemptAt: iso(T0) };
    expect(presentDelivery(older).nextAttemptAt).toBe(iso(T0 + 1500));
    expect(storedDelivery(older)).toStrictEqual(givenDelivery('a', 'd', { dueAtMs: T0 + 1500 }));
    const current = givenDelivery('a', 'd');
    expect(storedDelivery(current)).toBe(current);
  });
});
