import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

import { HTTP_DEFAULTS, loadConfig } from '../../src/config.js';
import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';

// The server's own timers, set small through the settings: a client that trickles its headers
// (or its body) in is answered 408 and cut off, however long it would go on; one that sends its
// request at once is served on the same server.

afterAll(stopAllSandboxes);

const SMALL = { HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '600', HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000' };

interface Cut {
  /** Everything the server wrote before it closed the connection. */
  answer: string;
  elapsedMs: number;
  /** Bytes the client had sent by then. */
  sent: number;
}

/**
 * Opens a connection, writes `start`, then one more byte of `trickle` every 20 ms (never the
 * end of it), and resolves when the server closes the connection.
 */
async function trickle(port: number, start: string, drip: string): Promise<Cut> {
  const socket: Socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let answer = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
  socket.on('error', () => {});
  const started = performance.now();
  socket.write(start);
  let sent = start.length;
  const timer = setInterval(() => {
    if (socket.writable) socket.write(drip[sent % drip.length]!);
    sent++;
  }, 20);
  await once(socket, 'close');
  clearInterval(timer);
  return { answer, elapsedMs: performance.now() - started, sent };
}

describe('HTTP_HEADERS_TIMEOUT_MS and HTTP_REQUEST_TIMEOUT_MS', () => {
  it('a client sending its headers a byte at a time is answered 408 and cut off once the headers timeout passes', async () => {
    const sandbox = await startTestSandbox(SMALL);
    expect(sandbox.server.headersTimeout).toBe(300);
    const cut = await trickle(sandbox.port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ', 'abcdefghij');
    expect(cut.answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(cut.elapsedMs).toBeGreaterThanOrEqual(300);
  });

  it('a client sending its body a byte at a time is cut off once the request timeout passes', async () => {
    const sandbox = await startTestSandbox(SMALL);
    expect(sandbox.server.requestTimeout).toBe(600);
    const headers =
      'POST /sandbox/accounts HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name": "';
    const cut = await trickle(sandbox.port, headers, 'slow');
    expect(cut.answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(cut.elapsedMs).toBeGreaterThanOrEqual(600);
  });

  it('a client that sends its request at once is served, and its kept-alive connection closes when idle for HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const sandbox = await startTestSandbox(SMALL);
    expect(sandbox.server.keepAliveTimeout).toBe(1000);
    const socket = connect(sandbox.port, '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const started = performance.now();
    await once(socket, 'close');
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).toContain('Keep-Alive: timeout=1');
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });
});

describe('the defaults', () => {
  it('are 10 s for headers, 30 s for a request and 65 s for an idle connection (above a proxy idle timeout of 60 s)', () => {
    expect(loadConfig({}).http).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 65_000,
    });
    expect(HTTP_DEFAULTS.keepAliveTimeoutMs).toBeGreaterThan(60_000);
  });

  it('a request timeout shorter than the headers timeout is refused at start-up, naming both', () => {
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' })).toThrow(
      'HTTP_REQUEST_TIMEOUT_MS=1000 is shorter than HTTP_HEADERS_TIMEOUT_MS=5000',
    );
    expect(loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '40000' }).http.requestTimeoutMs).toBe(40_000);
  });
});
