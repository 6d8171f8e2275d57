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
const RELAY_ID = /^([a-z0-9][a-z0-9-]{0,39})\.([A-Za-z0-9_-]{22})$/;

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
 * A relay id is `<name>.<signature>`: the signature is an HMAC of the account and the name with
 * a secret kept in the store, so every replica recognises the account's relays without storing
 * them, the URL stays the same across runs of `listen` (subscriptions made by hand keep
 * working), and nobody can make up the id of another account's relay.
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

  /** The id of the account's relay of that name. */
  relayIdFor(accountId: string, name: string): string {
    return `${name}.${this.#sign(accountId, name)}`;
  }

  /** Whether `relayId` is a relay of the account. */
  owns(accountId: string, relayId: string): boolean {
    const [, name, signature] = RELAY_ID.exec(relayId) ?? [];
    if (name === undefined || signature === undefined) return false;
    const expected = Buffer.from(this.#sign(accountId, name));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
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
    return RELAY_ID.test(relayId) ? relayId : null;
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

  #sign(accountId: string, name: string): string {
    return createHmac('sha256', this.secret)
      .update(`relay\n${accountId}\n${name}`)
      .digest('base64url')
      .slice(0, SIGNATURE_CHARS);
  }
}
