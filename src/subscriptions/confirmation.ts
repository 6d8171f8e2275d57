import { AppError } from '../core/errors.js';
import type { AccountDoc, ConfirmationTokenRecord, DeepReadonly } from '../store/data.js';

/** How long a used token is kept, so confirming twice gets a precise error rather than "unknown token". */
const USED_TOKEN_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * The confirmation handshake as a state machine over stored tokens:
 * issue (pending subscription) → confirm with the token (single use, before it expires) → confirmed.
 * Issuing a new token for a subscription replaces its unused ones; used ones are forgotten a day later.
 */

export function issueConfirmationToken(
  data: AccountDoc,
  input: { subscriptionId: string; accountId: string; token: string; nowMs: number; ttlSeconds: number },
): ConfirmationTokenRecord {
  data.confirmationTokens = data.confirmationTokens.filter((t) =>
    t.usedAt !== null
      ? Date.parse(t.usedAt) + USED_TOKEN_RETENTION_MS > input.nowMs
      : t.subscriptionId !== input.subscriptionId,
  );
  const record: ConfirmationTokenRecord = {
    token: input.token,
    subscriptionId: input.subscriptionId,
    accountId: input.accountId,
    expiresAt: new Date(input.nowMs + input.ttlSeconds * 1000).toISOString(),
    usedAt: null,
  };
  data.confirmationTokens.push(record);
  return record;
}

export function confirmationUrl(publicUrl: string, subscriptionId: string, token: string): string {
  return `${publicUrl}/v1/subscriptions/${encodeURIComponent(subscriptionId)}/confirm?confirmationToken=${encodeURIComponent(token)}`;
}

const TOKEN_KEY = 'confirmationToken';

/** Checks the token for the subscription; throws a 400 saying whether it is wrong, used or expired. */
export function checkConfirmationToken(
  data: DeepReadonly<AccountDoc>,
  subscriptionId: string,
  token: string,
  nowMs: number,
): DeepReadonly<ConfirmationTokenRecord> {
  const resend = `POST /sandbox/subscriptions/${subscriptionId}/confirmation sends a new one`;
  const record = data.confirmationTokens.find((t) => t.token === token && t.subscriptionId === subscriptionId);
  if (!record) {
    throw new AppError(
      400,
      'invalid_confirmation_token',
      `confirmationToken is not the current token of subscription ${subscriptionId}; use the latest confirmationUrl, or ${resend}`,
      {
        details: { parameter: TOKEN_KEY },
      },
    );
  }
  if (record.usedAt !== null) {
    throw new AppError(
      400,
      'confirmation_token_used',
      `confirmationToken was already used at ${record.usedAt}; a token confirms once`,
      {
        details: { parameter: TOKEN_KEY },
      },
    );
  }
  if (Date.parse(record.expiresAt) <= nowMs) {
    throw new AppError(
      400,
      'confirmation_token_expired',
      `confirmationToken expired at ${record.expiresAt}; ${resend}`,
      {
        details: { parameter: TOKEN_KEY },
      },
    );
  }
  return record;
}
