import { CliProcess, runCliProcess } from '../helpers/cli-process.js';
import { DEMO_ACCOUNT_ID, DEMO_API_KEY, OTHER_API_KEY } from '../helpers/demo.js';
import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';

// Issue 40, item 4: a client command run without a key of the partner's own says on stderr that
// it uses the shared demo account; `listen` refuses it on a hosted sandbox (which says it is
// hosted in /healthz's X-Sandbox-Hosted), where it would receive and answer the webhooks of an
// account every stranger uses.

afterAll(stopAllSandboxes);

const SHARED =
  /^warning: neither --api-key nor WATER_API_KEY is set, so this (\S+ )+the demo account, which every user of this sandbox shares; set WATER_API_KEY to the key of your own account \(water-sandbox accounts create\)$/m;

describe('water-sandbox listen on a hosted sandbox', () => {
  it.each([
    ['no key at all', []],
    ['the demo key given', ['--api-key', DEMO_API_KEY]],
    ['the second published key', ['--api-key', OTHER_API_KEY]],
  ])('with %s: exits 2 saying why and what to do, and opens nothing', async (_what, keyArgs) => {
    const sandbox = await startTestSandbox({ PUBLIC_URL: 'https://sandbox.example.com' });
    const { code, stdout, stderr } = await runCliProcess([
      'listen',
      '--forward-to',
      'http://127.0.0.1:9/hooks',
      '--sandbox',
      sandbox.url,
      '--subscribe',
      'all',
      ...keyArgs,
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      `${sandbox.url} is a hosted sandbox: listen needs the key of an account of your own, or it would receive (and answer) the webhooks of the demo account, which everyone who uses this sandbox shares. Create one with water-sandbox accounts create --sandbox ${sandbox.url}, then pass its key as --api-key or WATER_API_KEY`,
    );
    expect(sandbox.deps.relays.openStreams(DEMO_ACCOUNT_ID)).toBe(0);
    const subscriptions = await fetch(`${sandbox.url}/v1/subscriptions`, {
      headers: { authorization: `Bearer ${DEMO_API_KEY}` },
    });
    expect(((await subscriptions.json()) as { total: number }).total).toBe(0);
  });

  it("with a key of the partner's own: listens, with no warning", async () => {
    const sandbox = await startTestSandbox({ PUBLIC_URL: 'https://sandbox.example.com' });
    const created = await fetch(`${sandbox.url}/sandbox/accounts`, { method: 'POST' });
    const { apiKey } = (await created.json()) as { apiKey: string };
    const cli = new CliProcess(
      ['listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--sandbox', sandbox.url, '--api-key', apiKey],
      {},
    );
    try {
      await cli.waitFor(/^Ready\. Webhooks sent to https:\/\/sandbox\.example\.com\/relay\/\S+ are forwarded/m);
      expect(cli.stderr).toBe('');
    } finally {
      cli.kill('SIGKILL');
      await cli.exited;
    }
  });
});

describe('client commands with the shared demo account', () => {
  it('a local sandbox lets listen use the demo key, and says on stderr that it shares the demo account', async () => {
    const sandbox = await startTestSandbox();
    const cli = new CliProcess(['listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--sandbox', sandbox.url]);
    try {
      await cli.waitFor(/^Ready\. /m);
      expect(cli.stderr).toMatch(SHARED);
      expect(cli.stderr).toContain('this receives the webhooks of the demo account');
    } finally {
      cli.kill('SIGKILL');
      await cli.exited;
    }
  });

  it('every command that uses the key warns, on stderr only; one with a key of its own, or accounts create, does not', async () => {
    const sandbox = await startTestSandbox();
    const env = { SANDBOX_URL: sandbox.url };
    const clock = await runCliProcess(['clock', 'advance', '1h'], { env });
    expect(clock.code).toBe(0);
    expect(clock.stderr).toMatch(SHARED);
    expect(clock.stdout).not.toContain('warning');

    const explicit = await runCliProcess(['scenario', 'list', '--api-key', DEMO_API_KEY], { env });
    expect(explicit.code).toBe(0);
    expect(explicit.stderr).toContain(
      'warning: the key of --api-key is a published one of the shared demo data, so this acts on the demo account',
    );

    const created = await runCliProcess(['accounts', 'create', '--format', 'env'], { env });
    expect(created.code).toBe(0);
    expect(created.stderr).toBe('');
    const ownKey = /^WATER_API_KEY=(\S+)$/m.exec(created.stdout)![1]!;
    const own = await runCliProcess(['clock', 'advance', '1h'], { env: { ...env, WATER_API_KEY: ownKey } });
    expect(own.code).toBe(0);
    expect(own.stderr).not.toContain('warning');
  });
});
