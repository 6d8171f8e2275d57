import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { parse } from 'junit2json';

import { actionFolder, freePort, jobOf, OWN_ACTION, runWorkflowSteps, workflowJob, type Job } from './workflow.js';

/**
 * The workflows a partner copies, examples/github-actions.yml and the one of docs/ci.md, run as
 * GitHub runs them (test/docs/workflow.ts): this repository's two actions from a folder of
 * their own, the partner's `npm test` standing in as a sample integration of examples/readiness.
 */

const EXAMPLE = 'examples/github-actions.yml';
const sample = (name: string): string =>
  `${JSON.stringify(process.execPath)} ${JSON.stringify(fileURLToPath(new URL(`../../examples/readiness/${name}.mjs`, import.meta.url)))}`;
const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

/** The workflow blocks of docs/ci.md: ```yaml blocks with jobs. */
function docWorkflows(): { line: number; job: Job }[] {
  const lines = readFileSync('docs/ci.md', 'utf8').split('\n');
  const found: { line: number; job: Job }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```ya?ml\s*$/.test(lines[i]!)) continue;
    const end = lines.indexOf('```', i + 1);
    const text = lines.slice(i + 1, end).join('\n');
    if (/^jobs:/m.test(text)) found.push({ line: i + 1, job: jobOf(text, `docs/ci.md:${i + 1}`) });
    i = end;
  }
  return found;
}

const semver = (v: string): number[] => v.split('.').map(Number);
const notOlder = (a: string, b: string): boolean => {
  const [x, y] = [semver(a), semver(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! > y[i]!;
  return true;
};

const WORKFLOWS: [string, Job][] = [
  [EXAMPLE, workflowJob(EXAMPLE)],
  ...docWorkflows().map(({ line, job }): [string, Job] => [`docs/ci.md:${line}`, job]),
];

it('docs/ci.md shows a workflow', () => {
  expect(docWorkflows().length).toBeGreaterThan(0);
});

describe.each(WORKFLOWS)('%s', (_, job) => {
  const own = job.steps.filter((s) => s.uses !== undefined && OWN_ACTION.test(s.uses));

  it(`uses the two actions of this repository, pinned to one release tag (v${version} or later), and no copy of the sandbox in the workspace`, () => {
    expect(own.map((s) => s.uses!.replace(/^[\w.-]+\//, '').replace(/@.*$/, ''))).toEqual([
      'water-sandbox',
      'water-sandbox/readiness',
    ]);
    const refs = new Set(own.map((s) => s.uses!.replace(/^.*@/, '')));
    expect(refs.size).toBe(1);
    const [ref] = refs;
    expect(ref).toMatch(/^v\d+\.\d+\.\d+$/);
    expect(notOlder(ref!.slice(1), version)).toBe(true);
    expect(job.steps.filter((s) => s.uses?.startsWith('actions/checkout'))).toEqual([
      { uses: expect.stringMatching(/^actions\/checkout@/) },
    ]);
    expect(JSON.stringify(job)).not.toMatch(/npx|--prefix/);
  });
});

it(`${EXAMPLE} runs as GitHub would: the sandbox from the action's folder, a fresh account, the tests, an alert, and a graded readiness summary that says ready`, async () => {
  const port = await freePort();
  const actions = actionFolder({ port });
  const run = await runWorkflowSteps(workflowJob(EXAMPLE), { actions, npmTest: sample('careful') });
  for (const step of run.steps)
    expect([step.step, step.status, step.status === 0 ? '' : step.output]).toEqual([step.step, 0, '']);
  expect(run.failed).toBe(false);
  expect(run.skipped).toEqual([
    'actions/checkout@v4',
    'actions/setup-node@v4',
    'your-org/water-sandbox@v0.3.0/Stop the sandbox',
    "Keep the readiness report and the sandbox's log",
  ]);

  // Built once, in the action's folder; the partner's own npm commands in the workspace.
  const folder = actions.split('/').at(-1)!;
  const workspace = run.workspace.split('/').at(-1)!;
  expect(run.npmLog.trim().split('\n')).toEqual([
    `${workspace}: npm ci`,
    `${folder}: npm ci --no-audit --no-fund`,
    `${folder}: npm run build`,
    `${workspace}: npm test`,
    `${workspace}: npm run test:alerts`,
  ]);
  // Nothing of the sandbox's in the workspace.
  expect(readdirSync(run.workspace)).toEqual([]);

  const env = Object.fromEntries(
    run.githubEnv.split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  expect(Object.keys(env).sort()).toEqual([
    'SANDBOX_URL',
    'WATER_ACCOUNT_ID',
    'WATER_API_KEY',
    'WATER_LOCATION_ID',
    'WATER_LOCATION_IDS',
    'WATER_USER_EMAIL',
    'WATER_USER_PASSWORD',
  ]);
  expect(env['SANDBOX_URL']).toBe(`http://127.0.0.1:${port}`);
  expect(run.masked).toEqual([env['WATER_API_KEY'], env['WATER_USER_PASSWORD']]);
  expect(run.outputs['sandbox']).toMatchObject({
    url: env['SANDBOX_URL'],
    'api-key': env['WATER_API_KEY'],
    'location-id': env['WATER_LOCATION_ID'],
    'log-file': `${run.runnerTemp}/water-sandbox-${port}/sandbox.log`,
  });

  expect(run.summary).toMatch(
    /^### Integration readiness: ready for production\n\nAccount `[\w-]+`, since \S+: 12 passed, 0 failed, 2 pending, 0 not applicable\.\n\n\| Status \| Check \| Evidence \| What to do \|\n/,
  );
  expect(run.annotations).toEqual([]);
  expect(run.outputs['readiness']).toEqual({
    ready: 'true',
    'junit-file': `${run.runnerTemp}/water-sandbox-readiness.xml`,
  });
  const junit = await parse(readFileSync(run.outputs['readiness']!['junit-file']!, 'utf8'));
  expect(junit).toMatchObject({ name: 'water-sandbox readiness', tests: 14, failures: 0 });
}, 120_000);

it.each(WORKFLOWS.slice(1))(
  'the workflow of %s runs as GitHub would: with tests that do nothing, the readiness step fails, with an error per required check',
  async (_, job) => {
    const run = await runWorkflowSteps(job, { actions: actionFolder({ port: await freePort() }) });
    expect(run.failed).toBe(true);
    const failed = run.steps.filter((s) => s.status !== 0);
    expect(failed.map((s) => s.step)).toEqual([
      expect.stringMatching(/water-sandbox\/readiness@v[\d.]+\/Grade the integration$/),
    ]);
    expect(run.steps.slice(0, -1).every((s) => s.status === 0)).toBe(true);
    expect(run.summary).toMatch(/^### Integration readiness: not ready \(9 required checks failed or pending\)$/m);
    const errors = run.annotations.filter((a) => a.level === 'error');
    expect(errors).toHaveLength(9);
    expect(errors[0]).toEqual({
      level: 'error',
      title: 'readiness: readings.pagination pending',
      message: expect.stringMatching(
        /^Readings: every page of a multi-page answer is fetched\. pending: nothing in flight could settle it; to settle it: /,
      ),
    });
  },
  60_000,
);
