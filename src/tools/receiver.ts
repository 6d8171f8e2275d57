import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { describeReceivedRequest } from './received-request.js';

/**
 * A tiny webhook receiver for trying the sandbox by hand: prints every request it gets and
 * answers 200 with a JSON body (GET and POST, as production requires of endpoints).
 * `npm run receiver` (port 9999, or RECEIVER_PORT).
 */
const port = Number(process.env['RECEIVER_PORT'] ?? 9999);
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    process.stdout.write(describeReceivedRequest(req.method ?? '', req.url ?? '', body));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"received":true}');
  });
});
server.listen(port, '127.0.0.1', () =>
  process.stdout.write(`receiver listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks\n`),
);
process.once('SIGINT', () => server.close());
process.once('SIGTERM', () => server.close());
