import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { parse } from 'junit2json';

import { hasCurl } from '../docs/guides.js';
import { runWorkflowSteps, workflowJob } from '../docs/workflow.js';
import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';

/**
 * examples/readiness-ci.yml as a partner's pipeline runs it: its shell steps in order against a
 * started sandbox, with the careful sample integration standing in for the partner's `npm test`.
 * The pipeline passes, and the JUnit report it keeps says every check passed or was skipped.
 */

const WORKFLOW = 'examples/readiness-ci.yml';
const job = workflowJob(WORKFLOW);
const careful = fileURLToPath(new URL('../../examples/readiness/careful.mjs', import.meta.url));

afterAll(stopAllSandboxes);

it('uses only the CLI of the sandbox checkout, and keeps the JUnit report even when a step failed', () => {
  const commands = job.steps.flatMap((s) => (s.run ?? '').split('\n'));
  for (const call of commands.flatMap((line) => [...line.matchAll(/\bnpx\b[^|;&)#]*/g)].map((m) => m[0].trim()))) expect(call).toMatch(/^npx --prefix sandbox water-sandbox /);
  const keep = job.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'));
  expect(keep).toMatchObject({ if: 'always()', with: { path: 'readiness.xml' } });
});

(hasCurl ? it : it.skip)('runs its steps against a started sandbox: a fresh account, the integration tests, the readiness verdict as JUnit', async () => {
  const sandbox = await startTestSandbox();
  const run = await runWorkflowSteps(job, sandbox.url, { npmTest: `${JSON.stringify(process.execPath)} ${JSON.stringify(careful)}` });
  for (const step of run.steps) expect(step).toEqual({ step: step.step, status: 0, stderr: '' });
  expect(run.steps.map((s) => s.step)).toEqual(['npm ci', 'Start the sandbox', 'A fresh account for this run', 'Integration tests', 'Integration readiness']);
  expect(run.npmLog).toMatch(/: npm test$/m);
  const junit = await parse(await readFile(join(run.workspace, 'readiness.xml'), 'utf8'));
  expect(junit).toMatchObject({ name: 'water-sandbox readiness', tests: 14, failures: 0 });
}, 120_000);
