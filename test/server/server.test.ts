import { once } from 'node:events';
import { mkdtemp, readFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { startTestSandbox as start, stopAllSandboxes } from '../helpers/start-sandbox.js';

afterEach(stopAllSandboxes);

const auth = { Authorization: `Bearer ${DEMO_API_KEY}` };

describe('startSandbox', () => {
  it('takes a free port for PORT=0, answers /healthz, and writes it into the default PUBLIC_URL', async () => {
    const sandbox = await start({});
    expect(sandbox.port).toBeGreaterThan(0);
    expect(sandbox.deps.urls.publicUrl).toBe(`http://localhost:${sandbox.port}`);
    const res = await fetch(`${sandbox.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ok',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      store: 'memory',
    });
  });

  it('keeps state across a stop and a start on the same DATA_DIR', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'sandbox-')), 'state');
    const first = await start({ DATA_DIR: dataDir });
    const put = await fetch(`${first.url}/v1/locations/${DEMO_LOCATION_ID}`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ homeAway: 'away' }),
    });
    expect(put.status).toBe(200);
    await first.stop();

    const second = await start({ DATA_DIR: dataDir });
    const res = await fetch(`${second.url}/v1/locations/${DEMO_LOCATION_ID}`, { headers: auth });
    expect(((await res.json()) as { homeAway: string }).homeAway).toBe('away');
  });

  it('lets an in-flight request finish when stopping', async () => {
    const sandbox = await start({});
    const inFlight = fetch(`${sandbox.url}/v1/locations`, { headers: auth });
    await new Promise((resolve) => sandbox.server.once('request', resolve));
    const stopped = sandbox.stop();
    const res = await inFlight;
    expect(res.status).toBe(200);
    await stopped;
    await expect(fetch(`${sandbox.url}/healthz`)).rejects.toThrow();
  });

  it('refuses to start on a port in use, with the error', async () => {
    const blocker = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const port = (blocker.address() as { port: number }).port;
    await expect(start({ PORT: String(port) })).rejects.toThrow('EADDRINUSE');
    blocker.close();
  });

  it('serves https with a generated certificate when TLS=self-signed, and writes the PEM for clients to trust', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'sandbox-tls-')), 'state');
    const sandbox = await start({ TLS: 'self-signed', DATA_DIR: dataDir });
    expect(sandbox.url).toMatch(/^https:/);
    expect(sandbox.deps.urls.publicUrl).toBe(`https://localhost:${sandbox.port}`);
    const ca = await readFile(sandbox.tlsCertificate!, 'utf8');
    expect(ca).toContain('BEGIN CERTIFICATE');
    // Like the official Node client: https.request, trusting the sandbox's certificate.
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          servername: 'localhost',
          port: sandbox.port,
          path: '/v1/locations',
          headers: auth,
          ca,
          timeout: 5000,
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.on('timeout', () => req.destroy(new Error('the https request timed out')));
      req.end();
    });
    expect((JSON.parse(body) as { locations: unknown[] }).locations.length).toBeGreaterThan(0);
  });
});
