import request from 'supertest';

import type { TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY } from '../helpers/demo.js';

export interface Evidence {
  time: string;
  request?: string;
  deliveryId?: string;
  subscriptionId?: string;
  status?: number | null;
  detail: string;
}

export interface Check {
  id: string;
  title: string;
  required: boolean;
  status: 'passed' | 'failed' | 'pending' | 'not_applicable';
  evidence: Evidence[];
  fix: string | null;
  docs: string;
}

export interface Report {
  accountId: string;
  since: string;
  ready: boolean;
  summary: { passed: number; failed: number; pending: number; notApplicable: number };
  checks: Check[];
}

/** GET /sandbox/readiness, as the account. */
export async function readinessOf(t: TestApp, key = DEMO_API_KEY): Promise<Report> {
  const res = await request(t.app).get('/sandbox/readiness').set(bearer(key)).expect(200);
  return res.body as Report;
}

/** One check of the account's report. */
export async function checkOf(t: TestApp, id: string, key = DEMO_API_KEY): Promise<Check> {
  const check = (await readinessOf(t, key)).checks.find((c) => c.id === id);
  if (!check) throw new Error(`the report has no check ${id}`);
  return check;
}

export function drill(t: TestApp, name: string, key = DEMO_API_KEY): request.Test {
  return request(t.app).post('/sandbox/readiness/drills').set(bearer(key)).send({ drill: name });
}

/** A GET of the API with a credential (an API key or an access token). */
export function get(t: TestApp, path: string, credential = DEMO_API_KEY): request.Test {
  return request(t.app).get(path).set(bearer(credential));
}

/** The client waits: the process clock moves on (the account clock with it, unless frozen). */
export function wait(t: TestApp, ms: number): void {
  t.clock.advance(ms);
}

/** The account's check `id` has `status` and exactly these pieces of evidence, each matched on the fields given. */
export async function expectCheck(
  t: TestApp,
  id: string,
  status: Check['status'],
  ...evidence: Record<string, unknown>[]
): Promise<void> {
  expect(await checkOf(t, id)).toMatchObject({
    status,
    evidence: evidence.map((fields) => expect.objectContaining(fields) as unknown),
  });
}
