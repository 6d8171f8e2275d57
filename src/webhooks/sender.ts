import { performance } from 'node:perf_hooks';

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
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

const EXCERPT_CHARS = 500;
const MAX_BODY_BYTES = 64 * 1024;

export const USER_AGENT = 'water-sandbox-webhooks/1';

/** The headers of a webhook request as sent: ours, then the request's own (X-Sandbox-Delivery-Id, X-Sandbox-Attempt). */
export function headersOf({ body, headers = {} }: { body?: unknown; headers?: Record<string, string> | undefined }): Record<string, string> {
  return { 'User-Agent': USER_AGENT, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers };
}

/** What the delivery log keeps of an answer's body. */
export function describeAnswerBody(text: string): Pick<WebhookResponse, 'responseExcerpt' | 'bodyIsJson'> {
  return { responseExcerpt: text.slice(0, EXCERPT_CHARS), bodyIsJson: isJson(text) };
}

/** The real sender: global fetch with a per-attempt timeout. */
export const fetchSender: WebhookSender = {
  async send({ method, url, body, headers, timeoutMs }) {
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    try {
      const init: RequestInit = {
        method,
        headers: headersOf({ body, headers }),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'manual',
      };
      if (body !== undefined) init.body = JSON.stringify(body);
      const response = await fetch(url, init);
      const text = await readLimited(response);
      return {
        statusCode: response.status,
        latencyMs: elapsed(),
        error: null,
        ...describeAnswerBody(text),
      };
    } catch (error) {
      return { statusCode: null, latencyMs: elapsed(), error: describeFetchError(error, timeoutMs), responseExcerpt: null, bodyIsJson: false };
    }
  },
};

async function readLimited(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= MAX_BODY_BYTES) {
      await reader.cancel();
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

function describeFetchError(error: unknown, timeoutMs: number): string {
  const err = error as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `timed out after ${timeoutMs} ms`;
  const cause = err.cause;
  if (cause?.code) return `${cause.code}: ${cause.message ?? err.message}`;
  return err.message;
}
