import request from 'supertest';

import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { useTestApp } from '../helpers/use-test-app.js';
import { checkOf, expectCheck, get, wait } from './support.js';

/** readings.pagination, readings.grouping and polling.interval: passed, failed and pending, through real requests. */

const t = useTestApp();

const USAGE = `/v1/locations/${DEMO_LOCATION_ID}/readings/water-usage`;
const SUMMARY = `${USAGE}/summary`;
// Eight days of hours at 50 a page: 4 pages (the test clock's now is 2026-03-10T15:30Z).
const EIGHT_DAYS = `${USAGE}?startTime=2026-03-02T00:00:00Z&endTime=2026-03-10T00:00:00Z&perPage=50`;

describe('readings.pagination', () => {
  it('passes when every other page of a multi-page answer was requested within a minute, naming the first and the last', async () => {
    const first = await get(t, EIGHT_DAYS).expect(200);
    const pageCount = first.body.pageCount as number;
    expect(pageCount).toBe(4);
    for (let page = 2; page <= pageCount; page++) {
      wait(t, 5000);
      await get(t, `${EIGHT_DAYS}&page=${page}`).expect(200);
    }
    await expectCheck(
      t,
      'readings.pagination',
      'passed',
      {
        request: `GET ${USAGE}?startTime=2026-03-02T00%3A00%3A00Z&endTime=2026-03-10T00%3A00%3A00Z&perPage=50`,
        detail: 'answered page 1 of 4',
      },
      {
        request: expect.stringContaining('page=4'),
        detail: 'the last of 4 pages, 15 s after the first answer',
      },
    );
  });

  it('fails once a minute passed with pages left unrequested, naming them; a page of another query does not count', async () => {
    await get(t, EIGHT_DAYS).expect(200);
    await get(t, `${EIGHT_DAYS}&page=2`).expect(200);
    // Another query (perPage differs) is another walk.
    await get(t, `${USAGE}?startTime=2026-03-02T00:00:00Z&endTime=2026-03-10T00:00:00Z&perPage=60&page=3`).expect(200);
    wait(t, 61_000);
    const check = await checkOf(t, 'readings.pagination');
    expect(check.status).toBe('failed');
    expect(check.evidence).toEqual([
      expect.objectContaining({ status: 200, detail: 'pageCount 4; pages 3, 4 not requested within 60 s' }),
    ]);
    expect(check.fix).toMatch(/pageCount/);
  });

  it('moving the account clock forward counts as the minute passing', async () => {
    await get(t, EIGHT_DAYS).expect(200);
    expect((await checkOf(t, 'readings.pagination')).status).toBe('pending');
    await request(t.app).post('/sandbox/clock').set(bearer(DEMO_API_KEY)).send({ advanceSeconds: 61 }).expect(200);
    expect((await checkOf(t, 'readings.pagination')).status).toBe('failed');
  });

  it('is pending while only single-page answers came, or the minute of a multi-page answer is still running', async () => {
    await get(t, `${USAGE}?startTime=2026-03-09T00:00:00Z&groupBy=day`).expect(200);
    expect((await checkOf(t, 'readings.pagination')).status).toBe('pending');
    await get(t, EIGHT_DAYS).expect(200);
    wait(t, 30_000);
    await expectCheck(t, 'readings.pagination', 'pending', {
      detail: 'answered page 1 of 4; 1 of 4 pages requested so far, the rest awaited for 60 s after this answer',
    });
  });
});

describe('readings.pagination of a client whose endTime is the time of each request', () => {
  /**
   * A page as the official Node client (streamlabswater/stream-nodejs, lib/stream.js) asks for
   * it: all five parameters, endTime = now as toISOString(), perPage=100, values not encoded.
   */
  const officialPage = (startTime: string, page: number): request.Test =>
    get(
      t,
      `${USAGE}?endTime=${t.clock.now().toISOString()}&groupBy=hour&page=${page}&perPage=100&startTime=${startTime}`,
    );

  it('follows a month of hourly readings across a new hour: the pages were followed, with the advice to pin endTime', async () => {
    t.clock.set(new Date('2026-03-10T15:59:50Z'));
    const first = await officialPage('2026-02-08T16:00:00.000Z', 1).expect(200);
    const pageCount = first.body.pageCount as number;
    expect(pageCount).toBe(8);
    for (let page = 2; page <= pageCount; page++) {
      // 3 s a page: the hour turns during the walk, and the later pages count one hour more.
      wait(t, 3000);
      await officialPage('2026-02-08T16:00:00.000Z', page).expect(200);
    }
    const check = await checkOf(t, 'readings.pagination');
    expect(check.status).toBe('passed');
    expect(check.evidence[1]!.detail).toBe(
      'the last of 8 pages, 21 s after the first answer; endTime was the time of each request: pin endTime to one instant for every page of a walk, since a new hour starting during the walk shifts the pages',
    );
  });

  it("says the same of a walk that leaves endTime out (it is the account's now); a pinned endTime gets no advice (see above)", async () => {
    const noEnd = `${USAGE}?startTime=2026-03-02T00:00:00Z&perPage=50`;
    const pageCount = (await get(t, `${noEnd}&page=1`).expect(200)).body.pageCount as number;
    for (let page = 2; page <= pageCount; page++) await get(t, `${noEnd}&page=${page}`).expect(200);
    const check = await checkOf(t, 'readings.pagination');
    expect(check.status).toBe('passed');
    expect(check.evidence[1]!.detail).toMatch(
      /^the last of 5 pages, 0 s after the first answer; endTime was left out, so each page ended at the time of its request: pin endTime/,
    );
  });

  it('fails a walk whose pages name two endTimes of the past: those are two queries, not one walk', async () => {
    const range = (end: string): string => `${USAGE}?startTime=2026-03-02T00:00:00Z&endTime=${end}&perPage=50`;
    await get(t, `${range('2026-03-10T00:00:00Z')}&page=1`).expect(200);
    for (let page = 2; page <= 4; page++) await get(t, `${range('2026-03-10T01:00:00Z')}&page=${page}`).expect(200);
    wait(t, 61_000);
    const check = await checkOf(t, 'readings.pagination');
    expect(check.status).toBe('failed');
    expect(check.evidence[0]!.detail).toBe('pageCount 4; pages 2, 3, 4 not requested within 60 s');
  });

  it("counts pages whose answers came before page 1's (fetched together): the walk passes", async () => {
    for (const page of [3, 2, 4, 1]) await get(t, `${EIGHT_DAYS}&page=${page}`).expect(200);
    const check = await checkOf(t, 'readings.pagination');
    expect(check.status).toBe('passed');
    expect(check.evidence[1]!.detail).toBe('the last of 4 pages, 0 s after the first answer');
  });
});

describe('readings.grouping', () => {
  it('passes when readings were asked for with a grouping that suits the range', async () => {
    await get(t, `${USAGE}?startTime=2025-12-01T00:00:00Z&endTime=2026-03-10T00:00:00Z&groupBy=day&perPage=100`).expect(
      200,
    );
    await get(t, `${USAGE}?startTime=2026-03-01T00:00:00Z&perPage=100`).expect(200);
    const check = await checkOf(t, 'readings.grouping');
    expect(check).toMatchObject({ status: 'passed', required: false });
    expect(check.evidence).toEqual([expect.objectContaining({ detail: 'readings by day over 99 day(s)' })]);
  });

  it('fails when hourly readings were asked for over more than 31 days', async () => {
    await get(t, `${USAGE}?startTime=2026-01-01T00:00:00Z&endTime=2026-02-10T00:00:00Z&perPage=100`).expect(200);
    await expectCheck(t, 'readings.grouping', 'failed', { detail: 'hourly readings over 40 days' });
  });

  it('is pending while no readings were asked for (the summary is not readings by range)', async () => {
    await get(t, SUMMARY).expect(200);
    expect((await checkOf(t, 'readings.grouping')).status).toBe('pending');
  });
});

describe('polling.interval', () => {
  it('passes after 10 minutes of polls once a minute', async () => {
    for (let i = 0; i <= 10; i++) {
      await get(t, SUMMARY).expect(200);
      wait(t, 60_000);
    }
    const check = await checkOf(t, 'polling.interval');
    expect(check).toMatchObject({ status: 'passed', required: false });
    expect(check.evidence[1]!.detail).toBe('poll 11 over 10 minutes: one every 60 s on average');
  });

  it("fails when a location's readings were polled more than once a minute over 10 minutes", async () => {
    for (let i = 0; i < 12; i++) {
      await get(t, SUMMARY).expect(200);
      wait(t, 5000);
    }
    await expectCheck(t, 'polling.interval', 'failed', {
      request: `GET ${SUMMARY}`,
      detail: expect.stringMatching(/^poll 12 of these readings within 55 s .*more than once a minute$/),
    });
  });

  it('is pending before 10 minutes of polling, and the pages of one poll count once', async () => {
    await get(t, EIGHT_DAYS).expect(200);
    for (let page = 2; page <= 4; page++) await get(t, `${EIGHT_DAYS}&page=${page}`).expect(200);
    wait(t, 60_000);
    await get(t, EIGHT_DAYS).expect(200);
    expect((await checkOf(t, 'polling.interval')).status).toBe('pending');
  });
});
