import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP proxy in front of a sandbox that counts the requests matching a rule, so a test
 * can wait for a client to have made some (a client's poll, say) instead of waiting a fixed time.
 */
export class CountingProxy {
  #count = 0;
  readonly #waiters: { count: number; resolve: () => void }[] = [];

  private constructor(
    private readonly server: Server,
    readonly target: URL,
    private readonly counts: (req: IncomingMessage) => boolean,
  ) {}

  static async start(target: string, counts: (req: IncomingMessage) => boolean): Promise<CountingProxy> {
    const server = createServer();
    const proxy = new CountingProxy(server, new URL(target), counts);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => proxy.#forward(req, res));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once `count` matching requests have been forwarded. */
  counted(count: number): Promise<void> {
    if (this.#count >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  #forward(req: IncomingMessage, res: ServerResponse): void {
    if (this.counts(req)) {
      this.#count += 1;
      for (const waiter of this.#waiters.filter((w) => w.count <= this.#count)) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
    const upstream = request(
      { host: this.target.hostname, port: this.target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }
}
