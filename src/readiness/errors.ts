import {
  elapsedMs,
  keep,
  requestEvidence,
  seconds,
  type Evidence,
  type Moment,
  type Observed,
  type Verdict,
} from './model.js';

/**
 * errors.rate-limit and errors.server-errors, folded from the integration's requests in order:
 * how long each waited after a 429 or a 5xx, counted from when that answer was sent to when
 * the next request arrived.
 */

/** Slack for the two ends' clocks and timers: a client that waits exactly Retry-After is on time. */
export const WAIT_TOLERANCE_MS = 50;
/** A 429 without Retry-After asks for at least this. */
const DEFAULT_RETRY_AFTER_S = 1;
/** After a 5xx: the first wait, and the most retries in any minute (docs/readiness.md#errorsserver-errors). */
export const MIN_BACKOFF_MS = 1000;
export const MAX_RETRIES_PER_MINUTE = 5;

export interface ErrorsState {
  rateLimit: {
    /** The last 429 whose Retry-After has not been shown respected yet. */
    blocked: { end: Moment; retryAfterMs: number; evidence: Evidence } | null;
    passed: Evidence[] | null;
    failed: Evidence[];
    failureCount: number;
  };
  serverErrors: {
    /** Retries after 5xx answers, until an answer that is not a 5xx. */
    chain: { end: Moment; status: number; evidence: Evidence; lastWaitMs: number | null; retries: Moment[] } | null;
    passed: Evidence[] | null;
    failed: Evidence[];
    failureCount: number;
  };
}

export function initialErrors(): ErrorsState {
  return {
    rateLimit: { blocked: null, passed: null, failed: [], failureCount: 0 },
    serverErrors: { chain: null, passed: null, failed: [], failureCount: 0 },
  };
}

function foldRateLimit(state: ErrorsState['rateLimit'], seen: Observed): void {
  const { blocked } = state;
  if (blocked) {
    const waitedMs = elapsedMs(blocked.end, seen.start);
    if (waitedMs + WAIT_TOLERANCE_MS < blocked.retryAfterMs) {
      state.failureCount++;
      keep(
        state.failed,
        requestEvidence(
          seen,
          `sent ${seconds(Math.max(0, waitedMs))} after the 429 of ${blocked.evidence.time}, whose Retry-After asked for ${seconds(blocked.retryAfterMs)}`,
        ),
      );
    } else {
      state.passed ??= [
        blocked.evidence,
        requestEvidence(
          seen,
          `sent ${seconds(waitedMs)} after the 429, which asked for ${seconds(blocked.retryAfterMs)}`,
        ),
      ];
      state.blocked = null;
    }
  }
  if (seen.entry.status === 429) {
    const retryAfterS = seen.entry.facts?.retryAfter ?? DEFAULT_RETRY_AFTER_S;
    state.blocked = {
      end: seen.end,
      retryAfterMs: retryAfterS * 1000,
      evidence: requestEvidence(seen, `answered 429 with Retry-After: ${retryAfterS}`),
    };
  }
}

/** What is wrong with a retry after a 5xx, as the start of a sentence that names that answer; null when nothing is. */
function retryProblem(chain: NonNullable<ErrorsState['serverErrors']['chain']>, waitedMs: number): string | null {
  if (waitedMs + WAIT_TOLERANCE_MS < MIN_BACKOFF_MS)
    return `sent ${seconds(Math.max(0, waitedMs))} (under ${seconds(MIN_BACKOFF_MS)}) after`;
  if (chain.lastWaitMs !== null && waitedMs <= chain.lastWaitMs)
    return `sent ${seconds(waitedMs)}, no longer than the wait before it (${seconds(chain.lastWaitMs)}), after`;
  if (chain.retries.length > MAX_RETRIES_PER_MINUTE)
    return `retry ${chain.retries.length} within a minute (at most ${MAX_RETRIES_PER_MINUTE}), sent after`;
  return null;
}

function foldServerErrors(state: ErrorsState['serverErrors'], seen: Observed): void {
  const failedNow = seen.entry.status >= 500;
  const { chain } = state;
  if (!chain) {
    if (failedNow)
      state.chain = {
        end: seen.end,
        status: seen.entry.status,
        evidence: requestEvidence(seen, `answered ${seen.entry.status}`),
        lastWaitMs: null,
        retries: [],
      };
    return;
  }
  const waitedMs = elapsedMs(chain.end, seen.start);
  chain.retries = [...chain.retries.filter((at) => elapsedMs(at, seen.start) < 60_000), seen.start];
  const problem = retryProblem(chain, waitedMs);
  const evidence = requestEvidence(
    seen,
    `${problem ?? `retried ${seconds(waitedMs)} after`} the ${chain.status} answer of ${chain.evidence.time}`,
  );
  if (problem) {
    state.failureCount++;
    keep(state.failed, evidence);
  } else {
    state.passed ??= [chain.evidence, evidence];
  }
  if (failedNow) {
    chain.end = seen.end;
    chain.status = seen.entry.status;
    chain.evidence = requestEvidence(seen, `answered ${seen.entry.status}`);
    chain.lastWaitMs = waitedMs;
  } else {
    state.chain = null;
  }
}

export function foldErrors(state: ErrorsState, seen: Observed): void {
  foldRateLimit(state.rateLimit, seen);
  foldServerErrors(state.serverErrors, seen);
}

export function rateLimitVerdict(state: ErrorsState): Verdict {
  const { rateLimit } = state;
  if (rateLimit.failed.length > 0)
    return { status: 'failed', evidence: rateLimit.failed, more: rateLimit.failureCount - rateLimit.failed.length };
  if (rateLimit.passed) return { status: 'passed', evidence: rateLimit.passed };
  return { status: 'pending', evidence: rateLimit.blocked ? [rateLimit.blocked.evidence] : [] };
}

export function serverErrorsVerdict(state: ErrorsState): Verdict {
  const { serverErrors } = state;
  if (serverErrors.failed.length > 0)
    return {
      status: 'failed',
      evidence: serverErrors.failed,
      more: serverErrors.failureCount - serverErrors.failed.length,
    };
  if (serverErrors.passed) return { status: 'passed', evidence: serverErrors.passed };
  return { status: 'pending', evidence: serverErrors.chain ? [serverErrors.chain.evidence] : [] };
}
