import type { Check, Report } from '../../src/cli/readiness-format.js';
import {
  FOLLOW_UP_MS,
  settle,
  stoppedWaiting,
  whatCouldSettle,
  type Look,
  type Outlook,
} from '../../src/client/readiness-settle.js';

/** What `readiness --wait` and `assertReady({ waitSeconds })` wait for: the pending required checks that something in flight could still settle. */

const NOW = Date.parse('2026-03-10T15:30:00Z');
const at = (msBefore: number): string => new Date(NOW - msBefore).toISOString();

function pending(id: Check['id'], evidence: Check['evidence'] = [], required = true): Check {
  return { id, title: id, required, status: 'pending', evidence, fix: 'show it', docs: 'docs/readiness.md' };
}

const report = (...checks: Check[]): Report => ({
  accountId: 'acc-1',
  since: at(600_000),
  ready: false,
  summary: { passed: 0, failed: 0, pending: checks.length, notApplicable: 0 },
  checks,
});

type Delivery = Outlook['awaiting'][number];
const delivery = (kind: Delivery['kind'], extra: Partial<Delivery> = {}): Delivery => ({
  deliveryId: `d-${kind}`,
  kind,
  subscriptionId: 's-1',
  locationId: 'l-1',
  method: kind === 'receiver_check' ? 'GET' : 'POST',
  target: 'http://127.0.0.1:3000/hooks',
  requestHeaders: {},
  payload: null,
  state: 'pending',
  attempts: [],
  createdAt: at(100),
  nextAttemptAt: at(100),
  redeliveryOf: null,
  drill: null,
  note: null,
  ...extra,
});

const quiet: Outlook = { awaiting: [], accountNowMs: NOW, waitedMs: 0 };

it('nothing is in flight for checks with no evidence and no delivery on its way, nor for optional ones', () => {
  const r = report(
    pending('readings.pagination'),
    pending('errors.rate-limit'),
    pending('webhooks.alert-answer'),
    pending('readings.grouping', [], false),
  );
  expect(whatCouldSettle(r, quiet)).toEqual(new Map());
});

it('an open walk through pages is in flight: its minute settles it', () => {
  const walk = {
    time: at(5000),
    request: 'GET /v1/locations/l-1/readings/water-usage?page=1',
    status: 200,
    detail: 'answered page 1 of 4; 1 of 4 pages requested so far',
  };
  expect(whatCouldSettle(report(pending('readings.pagination', [walk])), quiet).get('readings.pagination')).toMatch(
    /^1 walk through pages still open \(answered page 1 of 4/,
  );
});

it(`a drill's answer is in flight for ${FOLLOW_UP_MS / 1000} s, on the account clock or, when that is frozen, the command's own wait`, () => {
  const answered = (msBefore: number): Check =>
    pending('errors.rate-limit', [
      { time: at(msBefore), request: 'GET /v1/locations', status: 429, detail: 'answered 429 with Retry-After: 2' },
    ]);
  expect(whatCouldSettle(report(answered(5000)), quiet).get('errors.rate-limit')).toMatch(
    /^the client's next request after .* is due$/,
  );
  expect(whatCouldSettle(report(answered(FOLLOW_UP_MS)), quiet).size).toBe(0);
  expect(whatCouldSettle(report(answered(5000)), { ...quiet, waitedMs: FOLLOW_UP_MS }).size).toBe(0);
});

it('a delivery still to be sent is in flight for the checks its answer decides', () => {
  const checks = report(
    pending('webhooks.confirmation-answer'),
    pending('webhooks.check-answer'),
    pending('subscriptions.confirmed'),
    pending('webhooks.alert-answer'),
    pending('webhooks.duplicate'),
    pending('webhooks.out-of-order'),
  );
  const settles = (awaiting: Delivery[]): string[] => [...whatCouldSettle(checks, { ...quiet, awaiting }).keys()];
  expect(settles([delivery('confirmation')])).toEqual([
    'webhooks.confirmation-answer',
    'webhooks.check-answer',
    'subscriptions.confirmed',
  ]);
  expect(settles([delivery('receiver_check')])).toEqual(['webhooks.check-answer']);
  expect(settles([delivery('alert')])).toEqual(['webhooks.alert-answer']);
  expect(settles([delivery('alert', { redeliveryOf: 'd-0', drill: 'duplicate-delivery' })])).toEqual([
    'webhooks.alert-answer',
    'webhooks.duplicate',
  ]);
  expect(settles([delivery('alert', { drill: 'out-of-order' })])).toEqual(['webhooks.out-of-order']);
  expect(settles([delivery('token')])).toEqual([]);
  expect(
    whatCouldSettle(checks, { ...quiet, awaiting: [delivery('alert'), delivery('alert')] }).get(
      'webhooks.alert-answer',
    ),
  ).toBe('2 deliveries still to be sent (alert d-alert to http://127.0.0.1:3000/hooks, ...)');
});

describe('settle: looking again while something in flight could settle a pending check', () => {
  const waitingFor = pending('webhooks.alert-answer');
  const ready: Look = { report: report(), pending: [], inFlight: new Map() };
  const inFlight: Look = {
    report: report(waitingFor),
    pending: [waitingFor],
    inFlight: new Map([['webhooks.alert-answer', '1 delivery still to be sent']]),
  };
  const stuck: Look = { report: report(waitingFor), pending: [waitingFor], inFlight: new Map() };

  /** A look function answering the given looks in turn (the last one again once they run out), and the times it was asked at. */
  function looks(...answers: Look[]): {
    look: (waitedMs: number) => Promise<Look>;
    askedAt: number[];
    slept: number[];
    sleep: (ms: number) => Promise<void>;
  } {
    const askedAt: number[] = [];
    const slept: number[] = [];
    return {
      askedAt,
      slept,
      look: (waitedMs) => {
        askedAt.push(waitedMs);
        return Promise.resolve(answers[Math.min(askedAt.length - 1, answers.length - 1)]!);
      },
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
    };
  }

  it('judges the first look when asked not to wait, or when nothing is pending', async () => {
    const noWait = looks(inFlight);
    expect(await settle(noWait.look, { waitMs: 0, pollMs: 100, sleep: noWait.sleep })).toEqual({
      look: inFlight,
      waitedMs: 0,
    });
    const none = looks(ready);
    expect((await settle(none.look, { waitMs: 5000, pollMs: 100, sleep: none.sleep })).look).toBe(ready);
    expect(none.askedAt).toEqual([0]);
  });

  it('waits while something is in flight, and stops as soon as every judged check settled', async () => {
    const run = looks(inFlight, inFlight, inFlight, ready);
    const { look, waitedMs } = await settle(run.look, { waitMs: 5000, pollMs: 100, sleep: run.sleep });
    expect(look).toBe(ready);
    expect(run.askedAt).toEqual([0, 100, 200, 300]);
    expect(waitedMs).toBe(300);
  });

  it('stops after two quiet looks in a row, not one (a hand-off may fall between two looks)', async () => {
    const handOff = looks(inFlight, stuck, inFlight, stuck, stuck, inFlight);
    const ended = await settle(handOff.look, { waitMs: 5000, pollMs: 100, sleep: handOff.sleep });
    expect(handOff.askedAt).toEqual([0, 100, 200, 300, 400]);
    expect(ended.look).toBe(stuck);
    expect(stoppedWaiting(ended, 5000)).toBe(
      'stopped waiting after 0.4 s: nothing in flight can settle the pending required checks (webhooks.alert-answer); each needs the integration to do something new',
    );
  });

  it('stops when the time runs out, its last nap cut to fit, and says what was still in flight', async () => {
    const run = looks(inFlight);
    const ended = await settle(run.look, { waitMs: 250, pollMs: 100, sleep: run.sleep });
    expect(run.slept).toEqual([100, 100, 50]);
    expect(ended.waitedMs).toBe(250);
    expect(stoppedWaiting(ended, 250)).toBe('waited 0.25 s, and webhooks.alert-answer still in flight');
  });

  it('given a first look, does not take it again', async () => {
    const run = looks(ready);
    expect((await settle(run.look, { waitMs: 1000, pollMs: 100, sleep: run.sleep }, inFlight)).look).toBe(ready);
    expect(run.askedAt).toEqual([100]);
  });

  it('has nothing to say when it did not wait, or everything settled', () => {
    expect(stoppedWaiting({ look: stuck, waitedMs: 0 }, 0)).toBeNull();
    expect(stoppedWaiting({ look: ready, waitedMs: 300 }, 5000)).toBeNull();
  });
});
