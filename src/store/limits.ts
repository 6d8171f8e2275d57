import { LimitError } from '../core/errors.js';
import type { AccountDoc, DeepReadonly } from './data.js';
import { jsonBytes } from './json-size.js';

/**
 * The bounds a store enforces on every change of an account, whichever feature makes it, so no
 * combination of calls outgrows them: the stored size of the account's document, and its
 * deliveries waiting to be sent. 0 = none (a store opened by a tool or a test without limits).
 */
export interface AccountLimits {
  /** ACCOUNT_STORAGE_LIMIT: bytes of the account's document as stored (JSON, UTF-8). */
  readonly accountBytes: number;
  /** MAX_PENDING_DELIVERIES: deliveries of the account not yet delivered or failed. */
  readonly pendingDeliveries: number;
}

export const NO_ACCOUNT_LIMITS: AccountLimits = Object.freeze({ accountBytes: 0, pendingDeliveries: 0 });

/** Where each part of the document goes when the partner deletes it (for the message of AccountStorageError). */
const HOW_TO_DELETE: Partial<Record<keyof AccountDoc, string>> = {
  faults: 'DELETE /sandbox/faults',
  oauthClients: 'DELETE /sandbox/oauth-clients/{clientId}, which takes its codes and tokens along',
  accessTokens:
    'DELETE /sandbox/oauth-clients/{clientId}, or POST /sandbox/tokens/expire: dead tokens go a day after they died on the account clock',
  refreshTokens: 'DELETE /sandbox/oauth-clients/{clientId}',
  authorizationCodes: 'DELETE /sandbox/oauth-clients/{clientId}',
  subscriptions: 'DELETE /v1/subscriptions/{subscriptionId}',
  confirmationTokens: 'DELETE /v1/subscriptions/{subscriptionId}',
  runs: 'POST /sandbox/reset',
  alerts: 'POST /sandbox/reset',
  locations: 'POST /sandbox/reset',
  readiness: 'POST /sandbox/readiness/reset',
};

const bytesText = (n: number): string => n.toLocaleString('en-US');

/**
 * 409: a change would make the account's document larger than ACCOUNT_STORAGE_LIMIT (and larger
 * than it was: a change that frees space always passes). Nothing of the change is stored. The
 * message names the largest parts of the document and how to delete each.
 */
export class AccountStorageError extends LimitError {
  constructor(
    readonly bytes: number,
    readonly maxBytes: number,
    doc: DeepReadonly<AccountDoc>,
  ) {
    // The parts a partner can delete, largest first (0 bytes for a part the document lacks, one stored by an older version).
    const parts = (Object.entries(HOW_TO_DELETE) as [keyof AccountDoc, string][])
      .map(([key, how]) => ({ key, how, bytes: jsonBytes(doc[key]) }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 3)
      .map(({ key, how, bytes: size }) => `${key} ${bytesText(size)} bytes (${how})`);
    super(
      409,
      'limit_reached',
      `This change would make the account's stored data ${bytesText(bytes)} bytes, more than the ${bytesText(maxBytes)} this sandbox keeps per account (ACCOUNT_STORAGE_LIMIT=${maxBytes}); nothing was changed. Its largest parts: ${parts.join('; ')}. Delete some of them first`,
      'ACCOUNT_STORAGE_LIMIT',
    );
  }
}

/** 409: new deliveries would take the account's pending deliveries past MAX_PENDING_DELIVERIES. Nothing of the change is stored. */
export class PendingDeliveriesError extends LimitError {
  constructor(
    readonly pending: number,
    readonly max: number,
  ) {
    super(
      409,
      'limit_reached',
      `This account has ${pending} webhook deliveries waiting to be sent, and this sandbox keeps at most ${max} (MAX_PENDING_DELIVERIES=${max}); nothing was changed. A delivery leaves the queue once delivered or failed: let them finish (their retries fall due on the account clock: POST /sandbox/clock moves it), or delete the subscriptions they go to (DELETE /v1/subscriptions/{subscriptionId})`,
      'MAX_PENDING_DELIVERIES',
    );
  }
}

/** The stored size of a document's JSON text, in bytes. */
export const storedBytes = (json: string): number => Buffer.byteLength(json, 'utf8');

/**
 * Refuses a changed document over the limit and larger than the document before it
 * (`previousBytes()`, asked only then). Its size is measured only under a limit.
 */
export function checkAccountBytes(
  limits: AccountLimits,
  doc: DeepReadonly<AccountDoc>,
  previousBytes: () => number,
): void {
  if (limits.accountBytes === 0) return;
  const bytes = jsonBytes(doc);
  if (bytes <= limits.accountBytes || bytes <= previousBytes()) return;
  throw new AccountStorageError(bytes, limits.accountBytes, doc);
}

/** Refuses `adding` new deliveries when the account has `pending` already and the limit would be passed. */
export function checkPendingDeliveries(limits: AccountLimits, pending: number, adding: number): void {
  if (limits.pendingDeliveries === 0 || adding === 0 || pending + adding <= limits.pendingDeliveries) return;
  throw new PendingDeliveriesError(pending, limits.pendingDeliveries);
}

/**
 * Freezes a stored document and everything in it, so no reader (documents are handed out without
 * a copy) can alter what is stored, and its parts' sizes can be kept (json-size.ts). A change's
 * document comes frozen from its draft (change-draft.ts); a loaded or created one is frozen here.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) for (const item of value as unknown[]) deepFreeze(item);
  else for (const key in value) deepFreeze(value[key]);
  return value;
}
