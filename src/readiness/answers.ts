import { notFound } from '../core/errors.js';
import { publishAccountEvent } from '../live/index.js';
import type { AccountDoc, DeepReadonly } from '../store/data.js';
import { runDrill, type DrillName, type DrillOutcome, type DrillsDeps } from './drills.js';
import type { ReadinessReport } from './report.js';
import type { Readiness } from './service.js';

export interface ReadinessAnswersDeps extends DrillsDeps {
  readiness: Readiness;
}

/** What GET /sandbox/readiness answers: the account's report. */
export async function readinessAnswer(deps: ReadinessAnswersDeps, accountId: string): Promise<ReadinessReport> {
  const report = await deps.readiness.report(accountId);
  if (!report) throw notFound('The account no longer exists');
  return report;
}

/** Opens a new readiness window, as POST /sandbox/readiness/reset does, and answers the fresh report. */
export async function resetReadinessAnswer(deps: ReadinessAnswersDeps, accountId: string): Promise<ReadinessReport> {
  await deps.readiness.reset(accountId);
  await publishAccountEvent(deps.store, accountId, { type: 'readiness' });
  return readinessAnswer(deps, accountId);
}

/** Runs a drill, as POST /sandbox/readiness/drills does (a 409 when it needs something first). */
export async function drillAnswer(
  deps: ReadinessAnswersDeps,
  caller: { accountId: string; doc: DeepReadonly<AccountDoc> },
  drill: DrillName,
): Promise<DrillOutcome> {
  const outcome = await runDrill(deps, caller.accountId, caller.doc, drill);
  await publishAccountEvent(deps.store, caller.accountId, { type: 'readiness' });
  return outcome;
}
