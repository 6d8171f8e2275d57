import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  rawBody: string;
}

/**
 * How the receiver answers one request: a status and body (with extra headers, once `until`
 * settles when given), a dropped connection, never, or a 200 whose body never ends.
 */
export type Reply =
  | {
      status?: number;
      body?: string;
      contentType?: string;
      headers?: Record<string, string>;
      delayMs?: number;
      until?: Promise<unknown>;
    }
  | { reset: true }
  | { hang: true }
  | { endless: true };

/**
 * A real HTTP server on a free loopback port that records what it receives. Replies are
 * taken from `script` in order, then `fallback`. `waitFor(n)` resolves once n requests arrived.
 */
export class WebhookReceiver {
  readonly received: ReceivedRequest[] = [];
  script: Reply[] = [];
  fallback: Reply = { status: 200, body: '{"ok":true}' };
  readonly #server: Server;
  readonly #waiters: { done: () => boolean; resolve: () => void }[] = [];
  readonly #hanging = new Set<ServerResponse>();
  /** Each endless answer: the bytes written so far, and whether the client cut it (before `close`). */
  readonly endless: { written: number; cutByClient: boolean }[] = [];
  #closing = false;
  #closed: Promise<void> | null = null;
  /**
   * Every URL of this receiver starts with it. A loopback port is reused as soon as it is
   * closed, so a request meant for an earlier receiver on the same port (a retry of another
   * test's sandbox, or another test run on the machine) must not count as received here.
   */
  readonly #prefix = `/r-${randomBytes(6).toString('hex')}`;

  private constructor() {
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receiver.#server.listen(0, '127.0.0.1');
    await once(receiver.#server, 'listening');
    return receiver;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  url(path = '/hooks'): string {
    return `http://127.0.0.1:${this.port}${this.#prefix}${path}`;
  }

  /** Resolves once at least `count` requests have arrived. */
  waitFor(count: number): Promise<void> {
    return this.waitUntil(() => this.received.length >= count);
  }

  /** Resolves once `count` of the received requests match (one by default). */
  async waitForMatching(matches: (request: ReceivedRequest) => boolean, count = 1): Promise<ReceivedRequest[]> {
    const matching = (): ReceivedRequest[] => this.received.filter(matches);
    await this.waitUntil(() => matching().length >= count);
    return matching();
  }

  private waitUntil(done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ done, resolve }));
  }

  bodies<T = Record<string, unknown>>(): T[] {
    return this.received.map((r) => r.body as T);
  }

  /** Stops listening and cuts open connections; closing again (a test's own close, then the clean-up's) waits for the same. */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    this.#closing = true;
    for (const res of this.#hanging) res.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '';
    if (!url.startsWith(this.#prefix)) {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not this receiver"}');
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let body: unknown = rawBody;
    try {
      body = rawBody === '' ? null : JSON.parse(rawBody);
    } catch {
      // keep the raw text
    }
    this.received.push({
      method: req.method ?? '',
      path: url.slice(this.#prefix.length),
      headers: req.headers,
      body,
      rawBody,
    });
    for (const waiter of [...this.#waiters]) {
      if (waiter.done()) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
    const reply = this.script.shift() ?? this.fallback;
    if ('reset' in reply) {
      req.socket.destroy();
      return;
    }
    if ('hang' in reply) {
      this.#hanging.add(res);
      return;
    }
    if ('endless' in reply) {
      await this.#answerEndlessly(res);
      return;
    }
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (reply.until) await reply.until;
    res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'application/json', ...reply.headers });
    res.end(reply.body ?? '{"ok":true}');
  }

  /** A 200 whose JSON body goes on until the client goes away (or the receiver closes). */
  async #answerEndlessly(res: ServerResponse): Promise<void> {
    const answer = { written: 0, cutByClient: false };
    this.endless.push(answer);
    this.#hanging.add(res);
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.from('"0123456789abcdef",'.repeat(800));
    res.write('[');
    // An object: the type checker does not see the close handler change it while the loop awaits.
    const stream = { open: true };
    const closed = new Promise<void>((resolve) =>
      res.once('close', () => {
        stream.open = false;
        answer.cutByClient = !this.#closing;
        resolve();
      }),
    );
    while (stream.open) {
      answer.written += chunk.length;
      if (!res.write(chunk)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
    }
  }
}
