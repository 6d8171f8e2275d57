import { createHmac, timingSafeEqual } from 'node:crypto';

import type { Ids } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import type { Store } from '../store/store.js';
import {
  isRelayReply,
  isRelayRequest,
  replyChannel,
  requestChannel,
  type RelayOutcome,
  type RelayRequest,
} from './messages.js';

/** A relay's name: `water-sandbox listen --name`, so two listeners of one account can have endpoints of their own. */
export const RELAY_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;
export const DEFAULT_RELAY_NAME = 'default';

const SIGNATURE_CHARS = 22; // 132 bits of an HMAC-SHA256, base64url
const NONCE_BYTES = 12; // a fresh relay each time one is opened
const NONCE_CHARS = 16;
const KEY_CHARS = 32; // 192 bits
const RELAY_ID = /^([a-z0-9][a-z0-9-]{0,39})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})$/;
/** A relay id of version 0.3 and before (`<name>.<signature>`, the same for every caller of an account and name): no longer served. */
const RETIRED_RELAY_ID = /^[a-z0-9][a-z0-9-]{0,39}\.[A-Za-z0-9_-]{22}$/;

/** The header that proves a call comes from the connection that opened the relay. */
export const RELAY_KEY_HEADER = 'X-Relay-Key';

/**
 * How long a forwarded request waits for a replica holding a `listen` connection to say it
 * took the request. Without that word the CLI is not connected, and the attempt fails at once
 * like an unreachable endpoint instead of waiting out the whole delivery timeout.
 */
export const ACCEPT_WAIT_MS = 1000;

export interface RelayDeps {
  store: Store;
  ids: Ids;
  logger: Logger;
  urls: { readonly publicUrl: string };
}

/**
 * Relays: the way `water-sandbox listen` receives the webhooks sent to an endpoint URL of this
 * sandbox (`<PUBLIC_URL>/relay/<relayId>`) and answers them from the partner's machine.
 *
 * A relay belongs to the connection that opened it (POST /sandbox/relays): its id is
 * `<name>.<nonce>.<signature>`, a fresh random nonce each time and an HMAC of the account, the
 * name and the nonce with a secret kept in the store, so every replica recognises the account's
 * relays without storing them and nobody can make up a relay id of an account, or find one from
 * the account and a name. Its key (an HMAC of the id) is given only to the opener, and its
 * stream, its answers and its endpoint over HTTP all need it: another holder of the account's
 * credentials (the demo key every partner shares, another developer's token) may see the
 * endpoint in the account's subscriptions, but cannot attach to the relay, answer for it, or
 * send requests down it and read the answers.
 *
 * All traffic goes over the store's event bus, so the sender, the replica holding the CLI's
 * stream and the replica receiving its answer may be three different processes.
 */
export class RelayHub {
  readonly #open = new Set<() => void>();
  readonly #openByAccount = new Map<string, number>();

  constructor(
    private readonly deps: RelayDeps,
    private readonly secret: string,
  ) {}

  /** A new relay of the account with that name: its id, and the key only its opener holds. */
  open(accountId: string, name: string): { relayId: string; relayKey: string } {
    // Through the HMAC, so it has the id's shape whatever ids a test gives.
    const nonce = this.#sign(`nonce\n${this.deps.ids.secret(NONCE_BYTES)}`, NONCE_CHARS);
    const relayId = `${name}.${nonce}.${this.#sign(`relay\n${accountId}\n${name}\n${nonce}`, SIGNATURE_CHARS)}`;
    return { relayId, relayKey: this.#keyOf(relayId) };
  }

  /** Whether `relayId` is a relay of the account. */
  owns(accountId: string, relayId: string): boolean {
    const [, name, nonce, signature] = RELAY_ID.exec(relayId) ?? [];
    if (name === undefined || nonce === undefined || signature === undefined) return false;
    return sameText(signature, this.#sign(`relay\n${accountId}\n${name}\n${nonce}`, SIGNATURE_CHARS));
  }

  /** Whether `key` is the key of the relay (given to the connection that opened it). */
  keyMatches(relayId: string, key: string | undefined): boolean {
    return key !== undefined && sameText(key, this.#keyOf(relayId));
  }

  /** Whether `relayId` is a relay of an earlier version, derived from the account and the name alone: never served now. */
  isRetired(relayId: string): boolean {
    return RETIRED_RELAY_ID.test(relayId);
  }

  /** The endpoint URL of a relay: what subscriptions name and what the sender recognises. */
  endpointOf(relayId: string): string {
    return `${this.deps.urls.publicUrl}/relay/${relayId}`;
  }

  /** The relay id when `url` is a relay endpoint of this sandbox (any account's), else null. */
  relayIdOfUrl(url: string | URL): string | null {
    const target = typeof url === 'string' ? (URL.canParse(url) ? new URL(url) : null) : url;
    if (!target || target.search !== '' || target.hash !== '') return null;
    const base = new URL(this.deps.urls.publicUrl);
    if (target.origin !== base.origin) return null;
    const prefix = `${base.pathname.replace(/\/+$/, '')}/relay/`;
    if (!target.pathname.startsWith(prefix)) return null;
    const relayId = target.pathname.slice(prefix.length);
    return RELAY_ID.test(relayId) || RETIRED_RELAY_ID.test(relayId) ? relayId : null;
  }

  /**
   * For the subscription check: 'own' for a relay endpoint of the account (accepted by every
   * ENDPOINT_POLICY, since it is this sandbox's own URL), 'foreign' for another account's, null otherwise.
   */
  classifyEndpoint(accountId: string, url: URL): 'own' | 'foreign' | null {
    const relayId = this.relayIdOfUrl(url);
    if (relayId === null) return null;
    return this.owns(accountId, relayId) ? 'own' : 'foreign';
  }

  /**
   * Takes the relay's requests on this replica (a `listen` connection is here): each one is
   * acknowledged on its reply channel and handed to `push`. Resolves with the function that stops.
   */
  async attach(relayId: string, push: (request: RelayRequest) => void): Promise<() => Promise<void>> {
    return this.deps.store.events.subscribe(requestChannel(relayId), (message) => {
      if (!isRelayRequest(message)) return;
      push(message);
      this.deps.store.events
        .publish(replyChannel(relayId, message.requestId), { type: 'accepted' })
        .catch((error: unknown) => {
          this.deps.logger.warn('relay: acknowledging a request failed', { relayId, err: error });
        });
    });
  }

  /** Sends one request to whoever listens on the relay, and waits for the answer (at most `timeoutMs`). */
  async forward(relayId: string, request: Omit<RelayRequest, 'requestId'>): Promise<RelayOutcome> {
    const requestId = this.deps.ids.uuid();
    const { events } = this.deps.store;
    let settle!: (outcome: RelayOutcome) => void;
    const outcome = new Promise<RelayOutcome>((resolve) => (settle = resolve));
    let accepted = false;
    const unsubscribe = await events.subscribe(replyChannel(relayId, requestId), (reply) => {
      if (!isRelayReply(reply)) return;
      if (reply.type === 'accepted') accepted = true;
      else settle(reply);
    });
    const acceptTimer = setTimeout(
      () => accepted || settle({ type: 'not_connected' }),
      Math.min(ACCEPT_WAIT_MS, request.timeoutMs),
    );
    const answerTimer = setTimeout(() => settle({ type: 'timeout' }), request.timeoutMs);
    // Bounded waits that hold nothing up: the server (or a test) decides when the process ends.
    acceptTimer.unref();
    answerTimer.unref();
    try {
      await events.publish(requestChannel(relayId), { ...request, requestId } satisfies RelayRequest);
      return await outcome;
    } finally {
      clearTimeout(acceptTimer);
      clearTimeout(answerTimer);
      await unsubscribe().catch(() => undefined);
    }
  }

  /** The CLI's answer to one request, for the replica waiting for it. */
  async answer(relayId: string, requestId: string, answer: RelayOutcome & { type: 'answer' | 'error' }): Promise<void> {
    await this.deps.store.events.publish(replyChannel(relayId, requestId), answer);
  }

  /** Registers an open `listen` stream of the account, ended by `closeAll` at shutdown; returns the function that forgets it. */
  track(accountId: string, close: () => void): () => void {
    this.#open.add(close);
    this.#openByAccount.set(accountId, this.openStreams(accountId) + 1);
    let tracked = true;
    return () => {
      if (!tracked) return;
      tracked = false;
      this.#open.delete(close);
      const left = this.openStreams(accountId) - 1;
      if (left > 0) this.#openByAccount.set(accountId, left);
      else this.#openByAccount.delete(accountId);
    };
  }

  /** The account's `listen` streams open on this replica. */
  openStreams(accountId: string): number {
    return this.#openByAccount.get(accountId) ?? 0;
  }

  /** Ends every `listen` stream of this replica (shutdown: the CLIs reconnect to another replica or wait). */
  closeAll(): void {
    for (const close of [...this.#open]) close();
    this.#open.clear();
  }

  #keyOf(relayId: string): string {
    return this.#sign(`relay-key\n${relayId}`, KEY_CHARS);
  }

  #sign(text: string, chars: number): string {
    return createHmac('sha256', this.secret).update(text).digest('base64url').slice(0, chars);
  }
}

/** Compares two secrets in constant time. */
function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
