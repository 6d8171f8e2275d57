import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { describeStartup, startSandbox } from '../../src/server.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';

afterEach(stopAllSandboxes);

async function tempCopyOfFixtures(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), 'fixtures-')), 'fixtures');
  await cp('fixtures', dir, { recursive: true });
  return dir;
}

describe('the start-up message', () => {
  it('names the real URL when PORT=0, the dashboard and docs, the demo key and login, the state, the fixtures and the scenarios', async () => {
    const sandbox = await startTestSandbox();
    const text = describeStartup(sandbox.report);
    expect(text).toContain(`running at http://localhost:${sandbox.port}`);
    expect(text).toContain(`dashboard   http://localhost:${sandbox.port}/`);
    expect(text).toContain(`present     http://localhost:${sandbox.port}/demo`);
    expect(text).toContain(`http://localhost:${sandbox.port}/docs`);
    expect(text).toContain(`Bearer ${DEMO_API_KEY}`);
    expect(text).toContain('demo@example.com / demo-password');
    expect(text).toContain('in memory only: new, seeded from the fixtures');
    expect(text).toMatch(/fixtures +2 accounts from \.\/fixtures; scenarios from \.\/scenarios: .*slow-leak-escalates/);
  });

  it('says when the state was kept from an earlier run on the same DATA_DIR', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'state-')), 'data');
    await (await startTestSandbox({ DATA_DIR: dataDir })).stop();
    const again = await startTestSandbox({ DATA_DIR: dataDir });
    expect(describeStartup(again.report)).toContain(`lowdb at ${dataDir}: kept from an earlier run`);
  });
});

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the listening address', () => {
  it('is 127.0.0.1 by default: this machine reaches it, its other addresses do not, and the message says how to expose it', async () => {
    const sandbox = await startSandbox(loadConfig({ PORT: '0', LOG_LEVEL: 'silent', DATA_DIR: ':memory:' }), {
      logger: silentLogger,
    });
    try {
      expect(sandbox.server.address()).toMatchObject({ address: '127.0.0.1' });
      expect(await accepts('127.0.0.1', sandbox.port)).toBe(true);
      // The machine's own network addresses, where it has any: nobody on the network gets in.
      const external = Object.values(networkInterfaces())
        .flatMap((list) => list ?? [])
        .filter((i) => !i.internal && i.family === 'IPv4');
      for (const address of external) expect(await accepts(address.address, sandbox.port)).toBe(false);
      expect(describeStartup(sandbox.report)).toContain(
        'listening   on 127.0.0.1 only: other machines cannot reach it (HOST=0.0.0.0, or --host 0.0.0.0, to expose it)',
      );
    } finally {
      await sandbox.stop();
    }
  });

  it('is every interface with HOST=0.0.0.0, and the message says so', async () => {
    const sandbox = await startTestSandbox({ HOST: '0.0.0.0' });
    expect(sandbox.server.address()).toMatchObject({ address: '0.0.0.0' });
    expect(describeStartup(sandbox.report)).toContain('listening   on 0.0.0.0: other machines can reach it');
  });
});

describe('fixtures edited after the state was made', () => {
  it('are not applied in silence: the message says so and how to reload; RESET=true reloads them', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'state-')), 'data');
    const fixturesDir = await tempCopyOfFixtures();
    await (await startTestSandbox({ DATA_DIR: dataDir, FIXTURES_DIR: fixturesDir })).stop();

    const file = join(fixturesDir, 'default.json');
    const fixtures = JSON.parse(await readFile(file, 'utf8')) as { accounts: { locations: { name: string }[] }[] };
    fixtures.accounts[0]!.locations[0]!.name = 'Renamed in the fixtures';
    await writeFile(file, JSON.stringify(fixtures));

    const kept = await startTestSandbox({ DATA_DIR: dataDir, FIXTURES_DIR: fixturesDir });
    expect(kept.report.fixturesChanged).toBe(true);
    expect(describeStartup(kept.report)).toContain(
      'changed since this state was made, and the stored state was kept: reload it with POST /sandbox/admin/reset or start with --reset',
    );
    const before = (await (
      await fetch(`${kept.url}/v1/locations/${DEMO_LOCATION_ID}`, { headers: bearer(DEMO_API_KEY) })
    ).json()) as { name: string };
    expect(before.name).not.toBe('Renamed in the fixtures');
    await kept.stop();

    const reset = await startTestSandbox({ DATA_DIR: dataDir, FIXTURES_DIR: fixturesDir, RESET: 'true' });
    expect(reset.report.fixturesChanged).toBe(false);
    const after = (await (
      await fetch(`${reset.url}/v1/locations/${DEMO_LOCATION_ID}`, { headers: bearer(DEMO_API_KEY) })
    ).json()) as { name: string };
    expect(after.name).toBe('Renamed in the fixtures');
  });
});
