import { performance } from 'node:perf_hooks';

import type { z } from 'zod';

import type { RelayRequest } from '../relay/messages.js';
import type * as relays from '../relay/operations.js';
import { sandboxError, type SandboxClient } from './client.js';
import { clientFor, type CommonOptions } from './commands.js';
import { CliError, type CliContext } from './context.js';
import { readServerEvents } from './sse.js';

type Relay = z.output<typeof relays.Relay>;

type Reply = { status: number; headers: Record<string, string>; body: string } | { error: string };

export interface ListenOptions extends CommonOptions {
  forwardTo: string;
  subscribe?: string[];
  name?: string;
}

/** The sandbox pings every 15 s; this long without a byte means the connection is dead. */
const SILENCE_MS = 40_000;
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 10_000;
/** The sandbox keeps this much of an answer (MAX_ANSWER_BODY_CHARS in src/relay/operations.ts). */
const MAX_ANSWER_CHARS = 32_768;
/** Headers of one hop, not passed on to the local URL. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'te', 'trailer']);

const short = (id: string): string => id.slice(0, 8);

/** What a webhook is, for the line printed per request. */
function describeRequest(request: RelayRequest): string {
  const delivery = request.headers['x-sandbox-delivery-id'] ?? request.headers['X-Sandbox-Delivery-Id'];
  const attempt = request.headers['x-sandbox-attempt'] ?? request.headers['X-Sandbox-Attempt'];
  const tag = delivery ? ` [delivery ${short(delivery)}${attempt ? `, attempt ${attempt}` : ''}]` : '';
  if (request.method === 'GET') return `GET  receiver check${tag}`;
  let what = 'webhook';
  try {
    const body = JSON.parse(request.body ?? 'null') as Record<string, unknown> | null;
    if (typeof body?.['confirmationToken'] === 'string') what = 'subscription confirmation';
    else if (typeof body?.['type'] === 'string' && typeof body['active'] === 'boolean') {
      what = `alert ${body['type']} ${body['active'] ? 'started' : 'ended'} at location ${short(typeof body['locationId'] === 'string' ? body['locationId'] : '')}`;
    }
  } catch {
    // not JSON: a plain "webhook"
  }
  return `POST ${what}${tag}`;
}

/** A confirmation message's subscription id and token, when the body is one. */
function confirmationOf(request: RelayRequest): { subscriptionId: string; token: string } | null {
  if (request.method !== 'POST' || request.body === null) return null;
  try {
    const body = JSON.parse(request.body) as { confirmationUrl?: unknown; confirmationToken?: unknown };
    if (typeof body.confirmationUrl !== 'string' || typeof body.confirmationToken !== 'string' || !URL.canParse(body.confirmationUrl)) return null;
    const match = /\/v1\/subscriptions\/([^/]+)\/confirm/.exec(new URL(body.confirmationUrl).pathname);
    return match ? { subscriptionId: decodeURIComponent(match[1]!), token: body.confirmationToken } : null;
  } catch {
    return null;
  }
}

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
async function forwardLocally(forwardTo: string, request: RelayRequest): Promise<{ reply: Reply; latencyMs: number }> {
  const started = performance.now();
  // The sandbox waits `timeoutMs` in all; leave it time to record the answer.
  const timeoutMs = Math.max(100, request.timeoutMs - 250);
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_HEADERS.has(name.toLowerCase())));
  try {
    const response = await fetch(forwardTo, {
      method: request.method,
      headers,
      ...(request.body === null ? {} : { body: request.body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = await readText(response, MAX_ANSWER_CHARS);
    return { reply: { status: response.status, headers: Object.fromEntries(response.headers), body }, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { reply: { error: `${forwardTo}: ${describeFetchError(error, timeoutMs)}` }, latencyMs: Math.round(performance.now() - started) };
  }
}

/**
 * Confirms the subscriptions `listen --subscribe` made, with the token of the confirmation
 * message it forwarded. The message may arrive before the subscription's id is known (the
 * sandbox sends it as soon as the subscription exists), so whichever comes second confirms.
 */
class Confirmer {
  readonly #mine = new Set<string>();
  readonly #tokens = new Map<string, string>();

  constructor(
    private readonly client: SandboxClient,
    private readonly ctx: CliContext,
  ) {}

  expect(subscriptionId: string): Promise<void> {
    this.#mine.add(subscriptionId);
    return this.#confirm(subscriptionId);
  }

  seen(subscriptionId: string, token: string): Promise<void> {
    this.#tokens.set(subscriptionId, token);
    return this.#confirm(subscriptionId);
  }

  async #confirm(subscriptionId: string): Promise<void> {
    const token = this.#tokens.get(subscriptionId);
    if (!this.#mine.has(subscriptionId) || token === undefined) return;
    this.#tokens.delete(subscriptionId);
    const path = `/v1/subscriptions/${encodeURIComponent(subscriptionId)}/confirm?confirmationToken=${encodeURIComponent(token)}`;
    try {
      const { status, body } = await this.client.call<{ status?: string; error?: string }>('GET', path, undefined, { accept: [400] });
      if (status === 200) this.ctx.stdout(`confirmed subscription ${subscriptionId}\n`);
      // The local receiver confirmed it first, or a newer token replaced this one (a newer message follows).
      else if (body.error !== 'confirmation_token_used') this.ctx.stderr(`could not confirm subscription ${subscriptionId} with this token (${body.error ?? status}); waiting for the next confirmation message\n`);
    } catch (error) {
      this.ctx.stderr(`could not confirm subscription ${subscriptionId}: ${(error as Error).message}\n`);
    }
  }
}

/** Locations named by --subscribe: ids as given, `all` for every location of the account. */
async function locationsToSubscribe(client: SandboxClient, given: string[]): Promise<string[]> {
  const named = given.flatMap((g) => g.split(',')).map((g) => g.trim()).filter((g) => g !== '');
  if (!named.includes('all')) return [...new Set(named)];
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const { body } = await client.call<{ locations: { locationId: string }[]; pageCount: number }>('GET', `/v1/locations?page=${page}&perPage=100`);
    ids.push(...body.locations.map((l) => l.locationId));
    if (page >= body.pageCount) break;
  }
  return ids;
}

/** SIGINT, SIGTERM, or the end of the process that started this one (saying so): what ends `listen`. */
function untilStopped(ctx: CliContext): Promise<string> {
  const parentGone = ctx.untilParentGone().then((why) => {
    ctx.stderr(`${why}: stopping\n`);
    return 'parent gone';
  });
  return Promise.race([ctx.untilStopSignal(), parentGone]);
}

/**
 * `listen --forward-to <url>`: holds one connection to the sandbox (server-sent events, and a
 * POST per answer), forwards every webhook sent to the relay endpoint to <url>, and sends the
 * local answer back. Reconnects when the connection drops. With --subscribe, subscribes the
 * locations to the relay endpoint, confirms them, and deletes them on SIGINT or SIGTERM, or when
 * the process that started it ends.
 */
export async function listen(options: ListenOptions, ctx: CliContext): Promise<number> {
  if (!URL.canParse(options.forwardTo) || !/^https?:$/.test(new URL(options.forwardTo).protocol)) {
    throw new CliError(`--forward-to must be an http or https URL such as http://localhost:3000/webhooks; got ${JSON.stringify(options.forwardTo)}`, 2);
  }
  const client = clientFor(options, ctx);
  const { body: relay } = await client.call<Relay>('POST', '/sandbox/relays', options.name === undefined ? {} : { name: options.name });
  const confirmer = new Confirmer(client, ctx);
  const stopSignal = untilStopped(ctx);

  let stopped = false;
  let abort = new AbortController();
  let fatal!: (error: CliError) => void;
  const failed = new Promise<CliError>((resolve) => (fatal = resolve));
  let ready!: () => void;
  const firstReady = new Promise<void>((resolve) => (ready = resolve));

  const handle = async (request: RelayRequest): Promise<void> => {
    const { reply, latencyMs } = await forwardLocally(options.forwardTo, request);
    const outcome = 'error' in reply ? `failed: ${reply.error}` : `${reply.status} (${latencyMs} ms)`;
    ctx.stdout(`${describeRequest(request)} -> ${outcome}\n`);
    try {
      await client.call('POST', `/sandbox/relays/${encodeURIComponent(relay.relayId)}/replies/${encodeURIComponent(request.requestId)}`, reply);
    } catch (error) {
      ctx.stderr(`could not return the answer to the sandbox: ${(error as Error).message}\n`);
    }
    const confirmation = confirmationOf(request);
    if (confirmation) await confirmer.seen(confirmation.subscriptionId, confirmation.token);
  };

  // One connection at a time; after a drop, back off and connect again until stopped.
  const connectLoop = async (): Promise<void> => {
    let delay = RECONNECT_MIN_MS;
    let everConnected = false;
    while (!stopped) {
      abort = new AbortController();
      let silence: NodeJS.Timeout | undefined;
      const heard = (): void => {
        clearTimeout(silence);
        silence = setTimeout(() => abort.abort(new Error(`no word from the sandbox for ${SILENCE_MS / 1000} s`)), SILENCE_MS);
      };
      let why = 'the sandbox closed the connection';
      try {
        const path = `/sandbox/relays/${encodeURIComponent(relay.relayId)}/requests`;
        const response = await client.stream(path, abort.signal);
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
          if (response.status < 500) return fatal(error);
          throw error;
        }
        heard();
        await readServerEvents(
          response.body!,
          (event) => {
            if (event.event === 'ready') {
              delay = RECONNECT_MIN_MS;
              if (everConnected) ctx.stderr('reconnected to the sandbox\n');
              everConnected = true;
              ready();
            } else if (event.event === 'request') void handle(JSON.parse(event.data) as RelayRequest);
          },
          heard,
        );
      } catch (error) {
        if (stopped) break;
        why = (error as Error).message;
      } finally {
        clearTimeout(silence);
      }
      if (stopped) break;
      ctx.stderr(`lost the connection to the sandbox (${why}); connecting again in ${delay / 1000} s\n`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, RECONNECT_MAX_MS);
    }
  };
  const loop = connectLoop();

  const stopOrFail = Promise.race([stopSignal.then(() => null), failed]);
  const early = await Promise.race([firstReady.then(() => undefined), stopOrFail]);
  const subscriptions: string[] = [];
  let result: CliError | null = early === undefined ? null : early;
  if (early === undefined) {
    ctx.stdout(`Ready. Webhooks sent to ${relay.endpoint} are forwarded to ${options.forwardTo} (Ctrl-C to stop)\n`);
    try {
      for (const locationId of await locationsToSubscribe(client, options.subscribe ?? [])) {
        const { body } = await client.call<{ subscriptionId: string; status: string }>('POST', `/v1/locations/${encodeURIComponent(locationId)}/subscriptions`, { endpoint: relay.endpoint });
        subscriptions.push(body.subscriptionId);
        ctx.stdout(`subscribed location ${locationId}: subscription ${body.subscriptionId} (${body.status})\n`);
        if (body.status === 'pending') await confirmer.expect(body.subscriptionId);
      }
      result = await stopOrFail;
    } catch (error) {
      result = error instanceof CliError ? error : new CliError((error as Error).message);
    }
  }

  stopped = true;
  abort.abort();
  await loop;
  for (const subscriptionId of subscriptions) {
    try {
      await client.call('DELETE', `/v1/subscriptions/${encodeURIComponent(subscriptionId)}`, undefined, { accept: [404] });
      ctx.stdout(`deleted subscription ${subscriptionId}\n`);
    } catch (error) {
      ctx.stderr(`could not delete subscription ${subscriptionId}: ${(error as Error).message}\n`);
    }
  }
  if (result) throw result;
  return 0;
}
