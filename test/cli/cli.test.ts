import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { SERVE_FLAGS, flagOf } from '../../src/cli/serve.js';
import { CONFIG_VARIABLES } from '../../src/config.js';
import { CliProcess, runCliProcess } from '../helpers/cli-process.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';

/** `water-sandbox` as a child process: help, exit codes, serve, and every client command against a started sandbox. */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const packageJson = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string };

afterAll(stopAllSandboxes);

describe('help and usage errors', () => {
  it('--help lists every command; help exits 0', async () => {
    const { code, stdout } = await runCliProcess(['--help']);
    expect(code).toBe(0);
    for (const command of ['serve', 'accounts', 'trigger', 'end', 'clock', 'scenario', 'readiness', 'listen'])
      expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  });

  it('serve --help lists a flag for every variable loadConfig reads, each with its variable', async () => {
    expect(SERVE_FLAGS.map((f) => f.variable).sort()).toEqual([...CONFIG_VARIABLES].sort());
    const { code, stdout } = await runCliProcess(['serve', '--help']);
    expect(code).toBe(0);
    // Help is wrapped at 80 columns: compare with the line breaks folded.
    const text = stdout.replace(/\s+/g, ' ');
    for (const { variable } of SERVE_FLAGS)
      expect(text).toMatch(new RegExp(`${flagOf(variable)} [<[][^ ]+ .*?\\[${variable}\\]`));
    expect(text).toContain('--port <port> listening port; 0 takes a free one (default 8080) [PORT]');
    expect(text).toContain('--reset [bool]');
  });

  it('--version prints the version of package.json', async () => {
    const { code, stdout } = await runCliProcess(['--version']);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(packageJson.version);
  });

  it.each([
    [['--bogus'], /unknown option '--bogus'/],
    [['serve', '--prot', '9000'], /unknown option '--prot' of water-sandbox serve \(did you mean --port\?\)/],
    [['nosuch'], /unknown command 'nosuch'/],
    [['trigger', 'highLeak'], /required option '--location <id>' not specified/],
    [['listen'], /required option '--forward-to <url>' not specified/],
    [['clock', 'advance', 'soon'], /"soon" is not a duration/],
    [['listen', '--forward-to', 'ftp://x'], /--forward-to must be an http or https URL/],
    [['clock', '--sandbox', 'not a url'], /--sandbox \(or SANDBOX_URL\) must be an http or https URL/],
    [['accounts', 'create', '--format', 'yaml'], /argument 'yaml' is invalid/],
    [
      ['scenario', 'run', 'cold-snap', '--location', 'x', '--detach', '--fast'],
      /--detach and --fast do not go together/,
    ],
  ])('%j exits 2 with a message', async (args, message) => {
    const { code, stderr } = await runCliProcess(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it.each([
    [
      ['trigger', 'highLeak', '--locaton', 'x'],
      "error: unknown option '--locaton' of water-sandbox trigger (did you mean --location?); water-sandbox trigger --help lists the options",
    ],
    [
      ['clock', 'advance', '1h', '--freez'],
      "error: unknown option '--freez' of water-sandbox clock advance (did you mean --freeze?); water-sandbox clock advance --help lists the options",
    ],
    [
      ['--api-key', 'K'],
      "error: unknown option '--api-key' for serve (the default command): it goes with a command that talks to a running sandbox, e.g. water-sandbox clock --api-key <value>",
    ],
    [
      ['--colour'],
      "error: unknown option '--colour' of water-sandbox serve; water-sandbox serve --help lists the options",
    ],
  ])(
    '%j names the unknown option (with the one meant), before any missing one, and exits 2 with nothing sent',
    async (args, message) => {
      const { code, stdout, stderr } = await runCliProcess(args, { env: { SANDBOX_URL: 'http://127.0.0.1:9' } });
      expect({ code, stdout, stderr }).toEqual({ code: 2, stdout: '', stderr: `${message}\n` });
    },
  );

  it("a bad value exits 2 with loadConfig's message, every problem listed, the flag named", async () => {
    const { code, stderr } = await runCliProcess([
      '--port',
      'abc',
      '--endpoint-policy',
      'open',
      '--data-dir',
      ':memory:',
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain('Invalid configuration:');
    expect(stderr).toContain('--port: PORT="abc": must be a whole number from 0 to 65535');
    expect(stderr).toContain(
      '--endpoint-policy: ENDPOINT_POLICY="open": must be one of https-only, https-or-loopback, any',
    );
  });

  it('a bad environment variable exits 2 as well', async () => {
    const { code, stderr } = await runCliProcess([], { env: { SEED: '-1', DATA_DIR: ':memory:' } });
    expect(code).toBe(2);
    expect(stderr).toContain('SEED="-1": must be a whole number');
  });
});

describe('serve (the default command)', () => {
  it('takes flags only (as npm start -- <flags> passes them), a flag wins over its variable, the package fixtures are the fallback, and SIGTERM stops it with 0', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'no-fixtures-'));
    const serve = new CliProcess(
      ['--port', '0', '--host', '127.0.0.1', '--data-dir', ':memory:', '--log-level', 'silent', '--seed', '7'],
      {
        cwd: elsewhere,
        // Bad values in the environment are overridden by the flags.
        env: { PORT: 'not-a-port', SEED: 'x', LOG_LEVEL: 'loud' },
      },
    );
    const [, port = ''] = await serve.waitFor(/running at http:\/\/localhost:(\d+)/, { stream: 'stderr' });
    expect(serve.stderr).toContain(`fixtures    2 accounts from ${join(REPO, 'fixtures')}`);
    expect(serve.stderr).toContain(`scenarios from ${join(REPO, 'scenarios')}`);
    expect(serve.stderr).toContain(`API docs    http://localhost:${port}/docs`);
    const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as {
      version: string;
      store: string;
    };
    expect(health).toEqual({ status: 'ok', version: packageJson.version, store: 'memory' });
    serve.kill('SIGTERM');
    expect(await serve.exited).toEqual({ code: 0, signal: null });
  });

  // process.execve exists from Node 22.15 / 23.11 (the container's Node 24); on older Nodes serve runs without the flags.
  const canReexec = typeof (process as { execve?: unknown }).execve === 'function' && process.platform === 'linux';
  (canReexec ? it : it.skip)(
    'replaces itself with node and the V8 flags of npm start: the same pid, the flags on its command line',
    async () => {
      const serve = new CliProcess([
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--data-dir',
        ':memory:',
        '--log-level',
        'silent',
      ]);
      await serve.waitFor(/running at http:\/\/localhost:\d+/, { stream: 'stderr' });
      const commandLine = (await readFile(`/proc/${serve.pid!}/cmdline`, 'utf8')).split('\0');
      expect(commandLine.slice(1, 3)).toEqual(['--max-old-space-size=256', '--max-semi-space-size=16']);
      serve.kill('SIGTERM');
      expect(await serve.exited).toEqual({ code: 0, signal: null });
    },
  );

  it('a start-up failure that is not a usage error exits 1', async () => {
    const { code, stderr } = await runCliProcess([
      '--port',
      '0',
      '--data-dir',
      ':memory:',
      '--fixtures-dir',
      join(tmpdir(), 'no-such-folder-here'),
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain('water-sandbox failed to start.');
  });
});

describe('client commands against a running sandbox', () => {
  let sandboxUrl: string;
  const env = (extra: Record<string, string> = {}): Record<string, string> => ({ SANDBOX_URL: sandboxUrl, ...extra });

  beforeAll(async () => {
    const scenariosDir = join(await mkdtemp(join(tmpdir(), 'scenarios-')), 'scenarios');
    await cp(join(REPO, 'scenarios'), scenariosDir, { recursive: true });
    // A scenario short enough to play in real time.
    await writeFile(
      join(scenariosDir, 'blip.json'),
      JSON.stringify({
        description: 'A one-second leak.',
        steps: [
          { at: 0, do: 'startAlert', alert: 'blip', type: 'lowLeak', peakValue: 0.3 },
          { at: 1, do: 'endAlert', alert: 'blip' },
        ],
        expect: {
          notifications: [
            { type: 'lowLeak', active: true },
            { type: 'lowLeak', active: false },
          ],
        },
      }),
    );
    sandboxUrl = (await startTestSandbox({ SCENARIOS_DIR: scenariosDir })).url;
  });

  /** `eval "$(water-sandbox accounts create)"`, done by a shell. */
  async function createAccount(): Promise<Record<string, string>> {
    const { code, stdout } = await runCliProcess(['accounts', 'create', '--locations', '2'], { env: env() });
    expect(code).toBe(0);
    const { stdout: printed } = await promisify(execFile)('sh', ['-c', 'eval "$1"; env', 'sh', stdout], {
      env: { PATH: process.env['PATH'] ?? '' },
    });
    return Object.fromEntries(
      printed
        .split('\n')
        .filter((l) => /^(WATER_|SANDBOX_URL=)/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
  }

  it('accounts create prints shell lines that eval exports: key, account, user, locations, sandbox URL', async () => {
    const vars = await createAccount();
    expect(vars['SANDBOX_URL']).toBe(sandboxUrl);
    expect(vars['WATER_API_KEY']).toMatch(/^sbx_/);
    expect(vars['WATER_USER_EMAIL']).toContain('@');
    expect(vars['WATER_LOCATION_IDS']!.split(' ')).toHaveLength(2);
    expect(vars['WATER_LOCATION_IDS']!.split(' ')[0]).toBe(vars['WATER_LOCATION_ID']);
    const locations = await fetch(`${sandboxUrl}/v1/locations`, { headers: bearer(vars['WATER_API_KEY']!) });
    expect(locations.status).toBe(200);
  });

  it('accounts create --format env prints plain NAME=value lines (for $GITHUB_ENV); --json the answer', async () => {
    const plain = await runCliProcess(['accounts', 'create', '--format', 'env'], { env: env() });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^WATER_LOCATION_IDS=[0-9a-f-]{36} [0-9a-f-]{36}$/m);
    expect(plain.stdout).not.toContain('export');
    const json = await runCliProcess(['accounts', 'create', '--json'], { env: env() });
    expect(JSON.parse(json.stdout)).toMatchObject({
      apiKey: expect.stringMatching(/^sbx_/),
      user: { email: expect.any(String) },
    });
  });

  it('trigger prints the alert id, end ends it; the sandbox shows both', async () => {
    const vars = await createAccount();
    const key = vars['WATER_API_KEY']!;
    const location = vars['WATER_LOCATION_ID']!;
    const started = await runCliProcess(['trigger', 'highLeak', '--location', location, '--peak-value', '5.5'], {
      env: env({ WATER_API_KEY: key }),
    });
    expect(started.code).toBe(0);
    const alertId = started.stdout.trim();
    expect(started.stderr).toContain(`started highLeak alert ${alertId}`);
    const alert = (await (
      await fetch(`${sandboxUrl}/sandbox/locations/${location}/alerts/${alertId}`, { headers: bearer(key) })
    ).json()) as { active: boolean; peakValue: number };
    expect(alert).toMatchObject({ active: true, peakValue: 5.5 });

    const ended = await runCliProcess(['end', alertId, '--location', location, '--api-key', key], { env: env() });
    expect(ended.code).toBe(0);
    expect(ended.stdout.trim()).toBe(alertId);
    const after = (await (
      await fetch(`${sandboxUrl}/sandbox/locations/${location}/alerts/${alertId}`, { headers: bearer(key) })
    ).json()) as { active: boolean };
    expect(after.active).toBe(false);
  });

  it('an error of the sandbox prints its message and exits 1', async () => {
    const { code, stderr } = await runCliProcess(['trigger', 'highLeak', '--location', 'no-such-location'], {
      env: env(),
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /error: No location "no-such-location" in this account \(POST \/sandbox\/locations\/no-such-location\/alerts: 404 not_found\)/,
    );
    const wrongKey = await runCliProcess(['clock', '--api-key', 'nope'], { env: env() });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain('403 invalid_credentials');
  });

  it('a sandbox that is not there is named, with exit 1', async () => {
    const { code, stderr } = await runCliProcess(['clock'], { env: { SANDBOX_URL: 'http://127.0.0.1:9' } });
    expect(code).toBe(1);
    expect(stderr).toContain('cannot reach the sandbox at http://127.0.0.1:9');
  });

  it('clock advance, set and real move the account clock (POST /sandbox/clock)', async () => {
    const vars = await createAccount();
    const withKey = env({ WATER_API_KEY: vars['WATER_API_KEY']! });
    const before = Date.parse((await runCliProcess(['clock'], { env: withKey })).stdout.trim());
    const advanced = await runCliProcess(['clock', 'advance', '1h30m'], { env: withKey });
    expect(advanced.code).toBe(0);
    expect(Date.parse(advanced.stdout.trim()) - before).toBeGreaterThanOrEqual(5400_000);
    expect(advanced.stderr).toMatch(/offset \+540\d s, running/);
    const days = await runCliProcess(['clock', 'advance', '2d'], { env: withKey });
    expect(days.stderr).toMatch(/offset \+17820\d s/);

    const set = await runCliProcess(['clock', 'set', '2026-12-24T18:00:00Z', '--freeze'], { env: withKey });
    expect(set.stdout.trim()).toBe('2026-12-24T18:00:00.000Z');
    expect(set.stderr).toContain('frozen');

    const real = await runCliProcess(['clock', 'real', '--json'], { env: withKey });
    expect(JSON.parse(real.stdout)).toMatchObject({ offsetSeconds: 0, frozen: false });
  });

  it('scenario run --fast plays the run on the account clock, printing each step, and exits 0 when it completes', async () => {
    const vars = await createAccount();
    const run = await runCliProcess(
      ['scenario', 'run', 'slow-leak-escalates', '--location', vars['WATER_LOCATION_ID']!, '--fast'],
      { env: env({ WATER_API_KEY: vars['WATER_API_KEY']! }) },
    );
    expect(run.code).toBe(0);
    const steps = run.stdout.split('\n').filter((l) => l.startsWith('step '));
    expect(steps).toHaveLength(5);
    expect(steps[0]).toMatch(/^step 1\/5 \+0s +setHomeAway: homeAway set to home$/);
    expect(steps[2]).toMatch(/^step 3\/5 \+10m +startAlert: escalated highLeak alert/);
    expect(steps[4]).toMatch(/^step 5\/5 \+2h +endAlert: ended lowLeak alert/);
    expect(run.stdout).toMatch(/run [0-9a-f-]{36} completed\n$/);
  });

  it('scenario run follows a run in real time without --fast', async () => {
    const vars = await createAccount();
    const run = await runCliProcess(
      ['scenario', 'run', 'blip', '--location', vars['WATER_LOCATION_ID']!, '--poll-ms', '100'],
      { env: env({ WATER_API_KEY: vars['WATER_API_KEY']! }) },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/next step at \S+ on the account clock/);
    expect(run.stdout).toMatch(/step 2\/2 \+1s +endAlert: ended lowLeak alert/);
    expect(run.stdout).toMatch(/completed\n$/);
  });

  it('scenario run of an unknown scenario exits 1 pointing to scenario list, not to an HTTP route; scenario list names the scenarios', async () => {
    const unknown = await runCliProcess(['scenario', 'run', 'nope', '--location', DEMO_LOCATION_ID], {
      env: env({ WATER_API_KEY: DEMO_API_KEY }),
    });
    expect(unknown.code).toBe(1);
    // The demo key is the shared account's: the command says so first.
    expect(unknown.stderr).toBe(
      'warning: the key of WATER_API_KEY is a published one of the shared demo data, so this acts on the demo account, which every user of this sandbox shares; set WATER_API_KEY to the key of your own account (water-sandbox accounts create)\n' +
        'error: no scenario "nope" on this sandbox; water-sandbox scenario list shows the ones it has\n',
    );
    const list = await runCliProcess(['scenario', 'list'], { env: env() });
    expect(list.stdout).toMatch(/^slow-leak-escalates +\+2h +5 steps /m);
    expect(list.stdout).toMatch(/^blip +\+1s +2 steps /m);
  });

  it('takes --sandbox, --api-key and --json before the command as after it', async () => {
    const vars = await createAccount();
    const before = await runCliProcess(
      ['--sandbox', sandboxUrl, '--api-key', vars['WATER_API_KEY']!, '--json', 'clock', 'advance', '1h'],
      { env: {} },
    );
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout)).toMatchObject({ offsetSeconds: 3600 });
    const res = await fetch(`${sandboxUrl}/sandbox/clock`, { headers: bearer(vars['WATER_API_KEY']!) });
    expect(await res.json()).toMatchObject({ offsetSeconds: 3600 });
    const mixed = await runCliProcess(['--api-key', vars['WATER_API_KEY']!, 'clock', 'real', '--sandbox', sandboxUrl], {
      env: {},
    });
    expect(mixed.code).toBe(0);
    expect(mixed.stderr).toContain('(no offset, running)');
  });

  it('Ctrl-C on scenario run cancels the run it started, says so and exits 130; no later step fires', async () => {
    const vars = await createAccount();
    const run = new CliProcess(
      ['scenario', 'run', 'away-leak', '--location', vars['WATER_LOCATION_ID']!, '--poll-ms', '50'],
      { env: env({ WATER_API_KEY: vars['WATER_API_KEY']! }) },
    );
    const [, runId] = await run.waitFor(/^run ([0-9a-f-]{36}): away-leak/m, { stream: 'stdout' });
    await run.waitFor(/next step at/);
    run.kill('SIGINT');
    expect(await run.exited).toEqual({ code: 130, signal: null });
    expect(run.stdout).toContain(`run ${runId!} cancelled`);
    expect(run.stderr).toContain(`SIGINT: cancelled run ${runId!} after step 1 of 4: no later step fires`);
    const auth = bearer(vars['WATER_API_KEY']!);
    await fetch(`${sandboxUrl}/sandbox/clock`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"advanceSeconds": 86400}',
    });
    const after = (await (await fetch(`${sandboxUrl}/sandbox/runs/${runId!}`, { headers: auth })).json()) as {
      state: string;
      log: unknown[];
    };
    expect({ state: after.state, steps: after.log.length }).toEqual({ state: 'cancelled', steps: 1 });
  });

  it('SIGTERM cancels it too, with 143; --detach leaves it playing, and scenario cancel stops it', async () => {
    const vars = await createAccount();
    const withKey = env({ WATER_API_KEY: vars['WATER_API_KEY']! });
    const run = new CliProcess(['scenario', 'run', 'cold-snap', '--location', vars['WATER_LOCATION_ID']!], {
      env: withKey,
    });
    await run.waitFor(/next step at/);
    run.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 143, signal: null });
    expect(run.stderr).toMatch(/^SIGTERM: cancelled run /m);

    const detached = await runCliProcess(
      ['scenario', 'run', 'cold-snap', '--location', vars['WATER_LOCATION_ID']!, '--detach'],
      { env: withKey },
    );
    expect(detached.code).toBe(0);
    const runId = detached.stdout.trim();
    expect(detached.stderr).toContain(
      `left playing on the account clock (water-sandbox scenario cancel ${runId} stops it)`,
    );
    const auth = bearer(vars['WATER_API_KEY']!);
    expect(
      ((await (await fetch(`${sandboxUrl}/sandbox/runs/${runId}`, { headers: auth })).json()) as { state: string })
        .state,
    ).toBe('running');
    const cancelled = await runCliProcess(['scenario', 'cancel', runId], { env: withKey });
    expect({ code: cancelled.code, stdout: cancelled.stdout }).toEqual({ code: 0, stdout: `${runId}\n` });
    expect(
      ((await (await fetch(`${sandboxUrl}/sandbox/runs/${runId}`, { headers: auth })).json()) as { state: string })
        .state,
    ).toBe('cancelled');
  });
});
