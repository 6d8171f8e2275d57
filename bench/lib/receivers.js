// Loopback webhook receivers for the benches: answer 200 JSON, count what they get.
import { once } from 'node:events';
import { createServer } from 'node:http';

/** `n` receivers; `urls` are their base URLs (any path is accepted); `waitFor(count)` resolves once that many arrived. */
export async function startReceivers(n) {
  const state = { count: 0, waiter: null };
  const servers = [];
  for (let i = 0; i < n; i++) {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        state.count++;
        if (state.waiter && state.count >= state.waiter.target) {
          const { resolve } = state.waiter;
          state.waiter = null;
          resolve();
        }
      });
    });
    server.keepAliveTimeout = 60_000;
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
  }
  return {
    urls: servers.map((s) => `http://127.0.0.1:${s.address().port}`),
    get count() {
      return state.count;
    },
    waitFor: (target) =>
      state.count >= target ? Promise.resolve() : new Promise((resolve) => (state.waiter = { target, resolve })),
    close: async () => {
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
    },
  };
}
