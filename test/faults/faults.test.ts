import { faultMatches, queueFault, takeFault } from '../../src/faults/faults.js';
import { emptyAccountDoc, type AccountDoc } from '../../src/store/data.js';

const NOW_MS = Date.UTC(2026, 10, 25, 12);
const newDoc = (): AccountDoc =>
  emptyAccountDoc({
    accountId: 'a',
    name: 'A',
    origin: 'generated',
    initialLocations: [],
    createdAt: new Date(NOW_MS).toISOString(),
  });
let faultNumber = 0;
const queue = (doc: AccountDoc, fault: Parameters<typeof queueFault>[1], first = false) =>
  queueFault(doc, fault, { faultId: `f${++faultNumber}`, nowMs: NOW_MS, maxFaults: 0, first });

describe('faultMatches', () => {
  const fault = (method: string | null, path: string | null) =>
    queue(newDoc(), { method: method ?? undefined, path: path ?? undefined, status: 500 });

  it.each([
    [null, null, 'GET', '/v1/locations', true],
    ['GET', null, 'GET', '/v1/locations', true],
    ['GET', null, 'POST', '/v1/locations', false],
    [null, '/v1/locations', 'GET', '/v1/locations', true],
    [null, '/v1/locations', 'GET', '/v1/locations/l1', false],
    [null, '/v1/locations/*', 'GET', '/v1/locations/l1/readings', true],
    [null, '/v1/locations/*', 'GET', '/v1/locations', false],
    [null, '/v1/locations*', 'GET', '/v1/locations', true],
  ])('a fault on %s %s matches %s %s: %s', (method, path, requestMethod, requestPath, expected) => {
    expect(faultMatches(fault(method, path), requestMethod, requestPath)).toBe(expected);
  });
});

describe('queueFault', () => {
  it('upper-cases the method and fills the defaults: one use, no delay, no Retry-After', () => {
    expect(queue(newDoc(), { method: 'get', status: 503 })).toMatchObject({
      method: 'GET',
      path: null,
      body: null,
      delayMs: 0,
      retryAfter: null,
      remaining: 1,
    });
  });

  it('queues after the others, or before them when first', () => {
    const doc = newDoc();
    const later = queue(doc, { status: 500 });
    const earlier = queue(doc, { status: 502 }, true);
    const last = queue(doc, { status: 503 });
    expect(doc.faults.map((f) => f.faultId)).toEqual([earlier.faultId, later.faultId, last.faultId]);
  });
});

describe('takeFault', () => {
  it('returns null and changes nothing when no fault matches', () => {
    const doc = newDoc();
    queue(doc, { method: 'POST', status: 500 });
    const before = structuredClone(doc.faults);
    expect(takeFault(doc, 'GET', '/v1/locations')).toBeNull();
    expect(doc.faults).toEqual(before);
  });

  it('counts a use down, drops the fault at its last, and never drops one without a limit', () => {
    const doc = newDoc();
    const twice = queue(doc, { method: 'GET', status: 500, times: 2 });
    const always = queue(doc, { method: 'POST', status: 502, times: null });
    expect(takeFault(doc, 'GET', '/x')).toMatchObject({ faultId: twice.faultId, remaining: 1 });
    expect(takeFault(doc, 'GET', '/x')).toMatchObject({ faultId: twice.faultId, remaining: 0 });
    expect(takeFault(doc, 'GET', '/x')).toBeNull();
    for (let i = 0; i < 3; i++)
      expect(takeFault(doc, 'POST', '/x')).toMatchObject({ faultId: always.faultId, remaining: null });
    expect(doc.faults.map((f) => f.faultId)).toEqual([always.faultId]);
  });

  it('hands out a copy: changing it leaves the stored fault alone', () => {
    const doc = newDoc();
    queue(doc, { status: 500, times: 3 });
    const taken = takeFault(doc, 'GET', '/x')!;
    taken.remaining = 99;
    expect(doc.faults[0]!.remaining).toBe(2);
  });
});

describe('queueFault with MAX_FAULTS', () => {
  it('queues up to maxFaults, then throws a 409 limit_reached naming the setting and how to delete, leaving the queue as it was', () => {
    const doc = newDoc();
    for (let i = 0; i < 3; i++) queueFault(doc, { status: 500 }, { faultId: `cap${i}`, nowMs: NOW_MS, maxFaults: 3 });
    expect(() =>
      queueFault(doc, { status: 500 }, { faultId: 'cap3', nowMs: NOW_MS, maxFaults: 3, first: true }),
    ).toThrow(
      expect.objectContaining({
        status: 409,
        code: 'limit_reached',
        limit: 'MAX_FAULTS',
        message:
          'This account has 3 faults queued, the most this sandbox allows (MAX_FAULTS=3); delete them (DELETE /sandbox/faults) before queueing another',
      }),
    );
    expect(doc.faults.map((f) => f.faultId)).toEqual(['cap0', 'cap1', 'cap2']);
  });

  it('0 is no cap', () => {
    const doc = newDoc();
    for (let i = 0; i < 50; i++)
      queueFault(doc, { status: 500 }, { faultId: `nocap${i}`, nowMs: NOW_MS, maxFaults: 0 });
    expect(doc.faults).toHaveLength(50);
  });
});
