import {
  EVIDENCE_KEPT,
  keep,
  remembering,
  requestEvidence,
  type Evidence,
  type Observed,
  type Verdict,
} from './model.js';

/**
 * oauth.token-exchange and oauth.refresh, folded from the journal: token requests of the
 * account's grants (auth `client`) and /v1 calls with its access tokens, which the journal
 * tells apart by the tokens' last characters.
 */
export interface OAuthState {
  /** Any OAuth traffic in the window: without it both checks are not applicable. */
  seen: boolean;
  exchange: {
    /** Access tokens issued by code exchanges, by tail: the exchange that issued each. */
    issued: Record<string, Evidence>;
    passed: Evidence[] | null;
    /** Exchanges refused through the client's fault since the last one that succeeded. */
    failures: Evidence[];
    failureCount: number;
  };
  refresh: {
    /** Requests sent with an access token after it expired, by token tail. */
    expired: Record<string, { count: number; evidence: Evidence[] }>;
    /** The first request refused as expired: what a refresh must follow. */
    trigger: Evidence | null;
    /** Access tokens issued by refreshes after the trigger, by tail. */
    refreshed: Record<string, Evidence>;
    passed: Evidence[] | null;
  };
}

/** Tokens remembered per map: an integration holds a few at a time. */
const TOKENS_KEPT = 20;

/** The RFC 6749 errors of a refused exchange that are the client's doing (a 429 or a 5xx are not). */
const CLIENT_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
]);

export function initialOAuth(): OAuthState {
  return {
    seen: false,
    exchange: { issued: {}, passed: null, failures: [], failureCount: 0 },
    refresh: { expired: {}, trigger: null, refreshed: {}, passed: null },
  };
}

/** The error_description of an RFC 6749 error body, when the journal kept one. */
function errorDescription(errorBody: string | undefined): string | null {
  if (errorBody === undefined) return null;
  try {
    const parsed = JSON.parse(errorBody) as { error_description?: unknown };
    return typeof parsed.error_description === 'string' ? parsed.error_description : null;
  } catch {
    return null;
  }
}

const shortToken = (tail: string): string => `…${tail.slice(-4)}`;

export function foldOAuth(state: OAuthState, seen: Observed): void {
  const { entry } = seen;
  const facts = entry.facts ?? {};
  if (entry.auth === 'client') {
    state.seen = true;
    if (facts.grantType === 'authorization_code') {
      if (entry.status === 200 && facts.issuedToken !== undefined) {
        state.exchange.issued = remembering(
          state.exchange.issued,
          facts.issuedToken,
          requestEvidence(seen, `code exchanged for the access token ${shortToken(facts.issuedToken)}`),
          TOKENS_KEPT,
        );
        state.exchange.failures = [];
        state.exchange.failureCount = 0;
      } else if (facts.oauthError !== undefined && CLIENT_ERRORS.has(facts.oauthError)) {
        state.exchange.failureCount++;
        const why = errorDescription(entry.errorBody);
        keep(
          state.exchange.failures,
          requestEvidence(seen, `code exchange refused with ${facts.oauthError}${why === null ? '' : `: ${why}`}`),
        );
      }
    } else if (
      facts.grantType === 'refresh_token' &&
      entry.status === 200 &&
      facts.issuedToken !== undefined &&
      state.refresh.trigger !== null
    ) {
      state.refresh.refreshed = remembering(
        state.refresh.refreshed,
        facts.issuedToken,
        requestEvidence(seen, `refreshed: new access token ${shortToken(facts.issuedToken)}`),
        TOKENS_KEPT,
      );
    }
    return;
  }
  if (entry.auth !== 'access_token' || facts.token === undefined) return;
  state.seen = true;
  const token = facts.token;
  if (facts.refusal === 'token_expired') {
    const sent = state.refresh.expired[token] ?? { count: 0, evidence: [] };
    sent.count++;
    const evidence = requestEvidence(
      seen,
      `sent with the expired access token ${shortToken(token)} (request ${sent.count} with it)`,
    );
    keep(sent.evidence, evidence);
    state.refresh.expired = remembering(state.refresh.expired, token, sent, TOKENS_KEPT);
    state.refresh.trigger ??= evidence;
    return;
  }
  if (facts.refusal !== undefined) return;
  const exchanged = state.exchange.issued[token];
  if (exchanged && state.exchange.passed === null)
    state.exchange.passed = [exchanged, requestEvidence(seen, `access token ${shortToken(token)} used on the API`)];
  const refreshed = state.refresh.refreshed[token];
  if (refreshed && state.refresh.trigger !== null && state.refresh.passed === null) {
    state.refresh.passed = [
      state.refresh.trigger,
      refreshed,
      requestEvidence(seen, `refreshed access token ${shortToken(token)} used on the API`),
    ];
  }
}

export function tokenExchangeVerdict(state: OAuthState): Verdict {
  if (!state.seen) return { status: 'not_applicable', evidence: [] };
  const { exchange } = state;
  if (exchange.failures.length > 0)
    return { status: 'failed', evidence: exchange.failures, more: exchange.failureCount - exchange.failures.length };
  if (exchange.passed) return { status: 'passed', evidence: exchange.passed };
  return { status: 'pending', evidence: [] };
}

/** Requests an integration may send with an expired token before it refreshes (docs/readiness.md#oauthrefresh). */
export const EXPIRED_TOKEN_ALLOWANCE = 2;

export function refreshVerdict(state: OAuthState): Verdict {
  if (!state.seen) return { status: 'not_applicable', evidence: [] };
  const overused = Object.values(state.refresh.expired).filter((sent) => sent.count > EXPIRED_TOKEN_ALLOWANCE);
  if (overused.length > 0) {
    const evidence = overused.flatMap((sent) => sent.evidence).slice(0, EVIDENCE_KEPT);
    const total = overused.reduce((sum, sent) => sum + sent.count, 0);
    return { status: 'failed', evidence, more: total - evidence.length };
  }
  if (state.refresh.passed) return { status: 'passed', evidence: state.refresh.passed };
  return { status: 'pending', evidence: state.refresh.trigger === null ? [] : [state.refresh.trigger] };
}
