import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describeStartup } from '../../src/server.js';
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
    expect(describeStartup(kept.report)).toContain('changed since this state was made, and the stored state was kept: reload it with POST /sandbox/admin/reset or start with --reset');
    const before = (await (await fetch(`${kept.url}/v1/locations/${DEMO_LOCATION_ID}`, { headers: bearer(DEMO_API_KEY) })).json()) as { name: string };
    expect(before.name).not.toBe('Renamed in the fixtures');
    await kept.stop();

    const reset = await startTestSandbox({ DATA_DIR: dataDir, FIXTURES_DIR: fixturesDir, RESET: 'true' });
    expect(reset.report.fixturesChanged).toBe(false);
    const after = (await (await fetch(`${reset.url}/v1/locations/${DEMO_LOCATION_ID}`, { headers: bearer(DEMO_API_KEY) })).json()) as { name: string };
    expect(after.name).toBe('Renamed in the fixtures');
  });
});
