import { performance } from 'node:perf_hooks';

import { sandboxError, type SandboxError, type SandboxHttp } from './http.js';
import { readServerEvents } from './sse.js';
import type { Relay, RelayRequest } from './types.js';

export type { RelayRequest };

/** The local URL's answer as the relay takes it back, or why there is none. */
export type RelayReply = { status: number; headers: Record<string, string>; body: string } | { error: string };

/** What a forwarder tells its owner (`water-sandbox listen` prints each as a line). */
export interface RelayListener {
  /** A request went to the local URL and its answer (or failure) is on its way back. */
  forwarded?(request: RelayRequest, reply: RelayReply, latencyMs: number): void;
  /** The answer could not be given back to the sandbox. */
  replyFailed?(request: RelayRequest, error: Error): void;
  /** The answer was given back (or failed to be): the request is done. */
  done?(request: RelayRequest): Promise<void>;
  /** The stream dropped; connecting again after `delayMs`. */
  disconnected?(why: string, delayMs: number): void;
  /** Connected again after a drop. */
  reconnected?(): void;
}

export interface RelayOptions extends RelayListener {
  /** Where each webhook sent to the relay endpoint goes: an http or https URL. */
  forwardTo: string;
  /** A name for the relay, shown in its endpoint (`default` when absent). */
  name?: string;
  /**
   * A relay this client opened before (its id and key), to hold again, so its endpoint stays the
   * same; a new relay is opened when absent. A relay the sandbox no longer knows ends in `failed`.
   */
  relay?: Relay;
}

/** The sandbox pings every 15 s; this long without a byte means the connection is dead. */
const SILENCE_MS = 40_000;
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 10_000;
/** The sandbox keeps this much of an answer (MAX_ANSWER_BODY_CHARS in src/relay/operations.ts). */
const MAX_ANSWER_CHARS = 32_768;
/** Headers of one hop, not passed on to the local URL. */
const HOP_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'te',
  'trailer',
]);

async function readText(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (text.length >= limit) {
      await reader.cancel();
      break;
    }
  }
  return text.slice(0, limit);
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  const err = error as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `timed out after ${timeoutMs} ms`;
  if (err.cause?.code) return `${err.cause.code}: ${err.cause.message ?? err.message}`;
  return err.message;
}

/** Sends one relayed request to the local URL; never throws. */
async function forwardLocally(
  forwardTo: string,
  request: RelayRequest,
): Promise<{ reply: RelayReply; latencyMs: number }> {
  const started = performance.now();
  // The sandbox waits `timeoutMs` in all; leave it time to record the answer.
  const timeoutMs = Math.max(100, request.timeoutMs - 250);
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(([name]) => !HOP_HEADERS.has(name.toLowerCase())),
  );
  try {
    const response = await fetch(forwardTo, {
      method: request.method,
      headers,
      ...(request.body === null ? {} : { body: request.body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = await readText(response, MAX_ANSWER_CHARS);
    return {
      reply: { status: response.status, headers: Object.fromEntries(response.headers), body },
      latencyMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    return {
      reply: { error: `${forwardTo}: ${describeFetchError(error, timeoutMs)}` },
      latencyMs: Math.round(performance.now() - started),
    };
  }
}

/**
 * One relay of an account, held open: every webhook the sandbox sends to the relay's endpoint
 * comes down one connection (server-sent events), goes to `forwardTo` with the same method,
 * headers and body, and the local answer goes back (a POST per answer) as the delivery's
 * answer. So a receiver on this machine gets the sandbox's webhooks with no network path from
 * the sandbox to it: a hosted sandbox, or one in a container. Reconnects when the connection
 * drops, until closed. `water-sandbox listen` and the Testcontainers module both run on it.
 */
export class RelayForwarder {
  /** Resolves at the first `ready` of the stream. */
  readonly ready: Promise<void>;
  /** Resolves with the sandbox's refusal of the stream (credentials, relay id): retrying would not help. */
  readonly failed: Promise<SandboxError>;
  #stopped = false;
  /** Read through a call in the loop: close() sets it while the loop awaits, which the type checker cannot see. */
  #isStopped = (): boolean => this.#stopped;
  #abort = new AbortController();
  /** Ends the wait before the next connection, when closed meanwhile. */
  #wake = (): void => undefined;
  readonly #loop: Promise<void>;

  private constructor(
    private readonly http: SandboxHttp,
    /** The relay: its id, name, and the endpoint URL to subscribe. */
    readonly relay: Relay,
    private readonly options: RelayOptions,
  ) {
    let ready!: () => void;
    this.ready = new Promise<void>((resolve) => (ready = resolve));
    let fatal!: (error: SandboxError) => void;
    this.failed = new Promise<SandboxError>((resolve) => (fatal = resolve));
    this.#loop = this.#connectLoop(ready, fatal);
  }

  /** Opens a relay of the account (its own: a new endpoint each time) and starts holding its stream (see `ready`). */
  static async open(http: SandboxHttp, options: RelayOptions): Promise<RelayForwarder> {
    if (!URL.canParse(options.forwardTo) || !/^https?:$/.test(new URL(options.forwardTo).protocol)) {
      throw new TypeError(
        `forwardTo must be an http or https URL such as http://localhost:3000/webhooks; got ${JSON.stringify(options.forwardTo)}`,
      );
    }
    const relay =
      options.relay ??
      (await http.call<Relay>('POST', '/sandbox/relays', options.name === undefined ? {} : { name: options.name }))
        .body;
    return new RelayForwarder(http, relay, options);
  }

  /** What proves each call of the relay comes from the connection that opened it. */
  get #keyHeader(): Record<string, string> {
    return { 'X-Relay-Key': this.relay.relayKey };
  }

  /** The URL to subscribe: webhooks sent to it reach `forwardTo`. */
  get endpoint(): string {
    return this.relay.endpoint;
  }

  /** Stops: the stream is closed (deliveries to the endpoint then fail as not connected). */
  async close(): Promise<void> {
    this.#stopped = true;
    this.#abort.abort();
    this.#wake();
    await this.#loop;
  }

  async #handle(request: RelayRequest): Promise<void> {
    const { reply, latencyMs } = await forwardLocally(this.options.forwardTo, request);
    this.options.forwarded?.(request, reply, latencyMs);
    try {
      await this.http.call(
        'POST',
        `/sandbox/relays/${encodeURIComponent(this.relay.relayId)}/replies/${encodeURIComponent(request.requestId)}`,
        reply,
        { headers: this.#keyHeader },
      );
    } catch (error) {
      this.options.replyFailed?.(request, error as Error);
    }
    await this.options.done?.(request);
  }

  // One connection at a time; after a drop, back off and connect again until stopped.
  async #connectLoop(ready: () => void, fatal: (error: SandboxError) => void): Promise<void> {
    let delay = RECONNECT_MIN_MS;
    let everConnected = false;
    while (!this.#stopped) {
      const abort = (this.#abort = new AbortController());
      let silence: NodeJS.Timeout | undefined;
      const heard = (): void => {
        clearTimeout(silence);
        silence = setTimeout(
          () => abort.abort(new Error(`no word from the sandbox for ${SILENCE_MS / 1000} s`)),
          SILENCE_MS,
        );
      };
      let why = 'the sandbox closed the connection';
      try {
        const path = `/sandbox/relays/${encodeURIComponent(this.relay.relayId)}/requests`;
        const response = await this.http.stream(path, abort.signal, this.#keyHeader);
        if (response.status !== 200) {
          const text = await response.text();
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // keep the text
          }
          const error = sandboxError('GET', path, response.status, body);
          // Credentials and relay ids do not get better by retrying.
          if (response.status < 500) {
            fatal(error);
            return;
          }
          throw error;
        }
        if (response.body === null) throw new Error('the sandbox answered the relay stream without a body');
        heard();
        await readServerEvents(
          response.body,
          (event) => {
            if (event.event === 'ready') {
              delay = RECONNECT_MIN_MS;
              if (everConnected) this.options.reconnected?.();
              everConnected = true;
              ready();
            } else if (event.event === 'request') void this.#handle(JSON.parse(event.data) as RelayRequest);
          },
          heard,
        );
      } catch (error) {
        if (this.#isStopped()) break;
        why = (error as Error).message;
      } finally {
        clearTimeout(silence);
      }
      if (this.#isStopped()) break;
      this.options.disconnected?.(why, delay);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      delay = Math.min(delay * 2, RECONNECT_MAX_MS);
    }
  }
}
