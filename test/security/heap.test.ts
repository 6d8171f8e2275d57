import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

// The first report of a hosted sandbox taken down by one account: about 350 POST /sandbox/faults
// with a 90 kB body each, and the process died with "JavaScript heap out of memory" (every
// partner's sandbox down). Here the same flood against a real child process with a quarter of
// npm start's heap, on the embedded store in a folder as npm start runs it, with the hosted
// defaults: the account's stored size is bounded, so the process stays up and keeps answering.
// (With ACCOUNT_STORAGE_LIMIT=1073741824 and MAX_FAULTS=0, the bounds out of the way, the child
// dies within the flood, as the sandbox did before it had them.)

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));
const HEAP_MB = 64;
const FLOOD = 350;

let child: ChildProcess | null = null;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'water-heap-'));
});

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    await new Promise((resolve) => child!.once('close', resolve));
  }
  child = null;
  await rm(dir, { recursive: true, force: true });
});

/** Starts the child; resolves with its URL, and a promise of how it ended. */
async function start(
  env: Record<string, string>,
): Promise<{ url: string; ended: Promise<{ code: number | null; stderr: string }> }> {
  const started = spawn(
    process.execPath,
    [
      `--max-old-space-size=${HEAP_MB}`,
      '--import',
      here('../store/crash/register-ts.mjs'),
      here('./heap/serve.ts'),
      JSON.stringify(env),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child = started;
  let stderr = '';
  started.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const ended = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    started.once('close', (code) => resolve({ code, stderr })),
  );
  for await (const line of createInterface({ input: started.stdout })) {
    const match = /^listening (\S+)$/.exec(line);
    if (match) return { url: match[1]!, ended };
  }
  throw new Error(`the sandbox did not start: ${(await ended).stderr}`);
}

it(`a hosted sandbox in a ${HEAP_MB} MB heap takes ${FLOOD} POST /sandbox/faults of 90 kB from one account and stays up: the account's stored size is bounded, and what it stored is kept`, async () => {
  const { url, ended } = await start({ DATA_DIR: dir, PUBLIC_URL: 'https://sandbox.example.com' });
  let exited: { code: number | null; stderr: string } | null = null;
  void ended.then((e) => (exited = e));
  const account = (await (
    await fetch(`${url}/sandbox/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
  ).json()) as { apiKey: string };
  const auth = { authorization: `Bearer ${account.apiKey}` };
  const body = JSON.stringify({ status: 500, body: { blob: 'x'.repeat(90 * 1024) } });
  const statuses = new Map<number, number>();
  for (let i = 0; i < FLOOD && exited === null; i++) {
    const res = await fetch(`${url}/sandbox/faults`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body,
    }).catch(() => null);
    // A connection that fails is the child dying: wait for it to say why.
    if (res === null) exited = await ended;
    else {
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      await res.arrayBuffer();
    }
  }
  expect(exited?.stderr ?? '').not.toContain('heap out of memory');
  expect(exited).toBeNull();
  const accepted = statuses.get(201) ?? 0;
  expect(accepted).toBeGreaterThan(5);
  expect(Object.fromEntries(statuses)).toEqual({ 201: accepted, 409: FLOOD - accepted });
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  const faults = (await (await fetch(`${url}/sandbox/faults`, { headers: auth })).json()) as { faults: unknown[] };
  expect(faults.faults).toHaveLength(accepted);
}, 120_000);
