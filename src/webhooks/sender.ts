import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';

import {
  BlockedAddressError,
  lookupThrough,
  type AddressGuard,
  type AddressRefusal,
  type Resolve,
} from './address-policy.js';

/** One HTTP call to a partner endpoint. */
export interface WebhookRequest {
  method: 'POST' | 'GET';
  url: string;
  body?: unknown;
  /** Extra headers, e.g. X-Sandbox-Delivery-Id and X-Sandbox-Attempt. */
  headers?: Record<string, string>;
  timeoutMs: number;
  /** The account whose delivery this is (relays use it to keep accounts apart). */
  accountId?: string;
  /**
   * Secrets only the endpoint may know (a confirmation token, on a hosted sandbox): an answer or
   * an error that repeats one is recorded with it replaced by HIDDEN, so an endpoint that echoes
   * its request cannot show the token to the account through the delivery log.
   */
  hide?: readonly string[];
}

/** What came back, or why nothing did. Never throws: every outcome is data for the delivery log. */
export interface WebhookResponse {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The first characters of the body, for the delivery log. */
  responseExcerpt: string | null;
  /** Whether the body parsed as JSON (production requires JSON answers). */
  bodyIsJson: boolean;
  /** Set when BLOCK_PRIVATE_ENDPOINTS refused the connection: nothing was sent, and trying again cannot help. */
  blocked?: AddressRefusal;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

const EXCERPT_CHARS = 500;
const MAX_BODY_BYTES = 64 * 1024;

export const USER_AGENT = 'water-sandbox-webhooks/1';

/** The headers of a webhook request as sent: ours, then the request's own (X-Sandbox-Delivery-Id, X-Sandbox-Attempt). */
export function headersOf({
  body,
  headers = {},
}: {
  body?: unknown;
  headers?: Record<string, string> | undefined;
}): Record<string, string> {
  return {
    'User-Agent': USER_AGENT,
    Accept: 'application/json',
    ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    ...headers,
  };
}

/** What the delivery log shows in place of a secret that only the endpoint may know. */
export const HIDDEN = '[hidden]';

/** `text` with every occurrence of each secret replaced by HIDDEN. */
export function hideSecrets(text: string, secrets: readonly string[] = []): string {
  let hidden = text;
  for (const secret of secrets) if (secret !== '') hidden = hidden.split(secret).join(HIDDEN);
  return hidden;
}

/**
 * What the delivery log keeps of an answer's body: its first characters, with `hide`'s secrets
 * replaced before it is cut (a cut must not leave the first half of a token behind).
 */
export function describeAnswerBody(
  text: string,
  hide: readonly string[] = [],
): Pick<WebhookResponse, 'responseExcerpt' | 'bodyIsJson'> {
  return { responseExcerpt: hideSecrets(text, hide).slice(0, EXCERPT_CHARS), bodyIsJson: isJson(text) };
}

export interface WebhookSenderOptions {
  /** BLOCK_PRIVATE_ENDPOINTS: every connection is checked on the address it goes to. Null: no check. */
  guard: AddressGuard | null;
  /** Name resolution when there is no guard (the guard has its own); the system's by default. */
  resolve?: Resolve;
}

/**
 * The real sender: node:http(s) with a per-attempt timeout, keep-alive connections per origin,
 * and redirects never followed (a 3xx is the answer). With a guard, each new connection's
 * address is checked by the sockets' own lookup hook before it connects, and a host that is
 * an address is checked here, since sockets look nothing up for it.
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const lookup: LookupFunction | undefined =
    options.guard?.lookup ?? (options.resolve && lookupThrough(options.resolve));
  const agentOptions = { keepAlive: true, lookup };
  const agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
  return {
    async send({ method, url, body, headers, timeoutMs, hide }) {
      const started = performance.now();
      const elapsed = (): number => Math.round(performance.now() - started);
      const failed = (error: string, blocked?: AddressRefusal): WebhookResponse => ({
        statusCode: null,
        latencyMs: elapsed(),
        error: hideSecrets(error, hide),
        responseExcerpt: null,
        bodyIsJson: false,
        ...(blocked === undefined ? {} : { blocked }),
      });
      if (!URL.canParse(url)) return failed(`not a URL: ${url}`);
      const target = new URL(url);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') return failed(`not an http(s) URL: ${url}`);
      const literal = options.guard?.checkLiteral(target.hostname) ?? null;
      if (literal) return failed(literal.message, literal);
      try {
        const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
        const response = await exchange(target, {
          method,
          // node:http sends the Content-Length of a body handed over whole with end().
          headers: headersOf({ body, headers }),
          agent: target.protocol === 'https:' ? agents.https : agents.http,
          signal: AbortSignal.timeout(timeoutMs),
          payload,
        });
        return {
          statusCode: response.status,
          latencyMs: elapsed(),
          error: null,
          ...describeAnswerBody(response.text, hide),
        };
      } catch (error) {
        if (error instanceof BlockedAddressError) return failed(error.message, error.refusal);
        return failed(describeRequestError(error, timeoutMs));
      }
    },
  };
}

/** One request and its answer's status and (first 64 kB of) body. */
function exchange(
  target: URL,
  init: {
    method: string;
    headers: Record<string, string>;
    agent: HttpAgent;
    signal: AbortSignal;
    payload: Buffer | undefined;
  },
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    // The agent makes the connection, TLS or not (node:http takes an https URL with an https agent).
    const req = httpRequest(
      target,
      { method: init.method, headers: init.headers, agent: init.agent, signal: init.signal },
      (res) => {
        readLimited(res).then((text) => resolve({ status: res.statusCode ?? 0, text }), reject);
      },
    );
    req.on('error', reject);
    req.end(init.payload);
  });
}

async function readLimited(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).byteLength;
    if (size >= MAX_BODY_BYTES) {
      res.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function describeRequestError(error: unknown, timeoutMs: number): string {
  const err = error as Error & { code?: string };
  // The attempt's timeout signal is the only thing that aborts a request.
  if (err.name === 'AbortError') return `timed out after ${timeoutMs} ms`;
  if (err.code) return `${err.code}: ${err.message}`;
  return err.message;
}
