import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';
import { hasCurl } from './guides.js';
import { runWorkflowSteps, workflowJob } from './workflow.js';

const WORKFLOW = 'examples/github-actions.yml';
const job = workflowJob(WORKFLOW);

afterAll(stopAllSandboxes);

describe(`${WORKFLOW}, as a partner copies it`, () => {
  it('uses no npm package that is not published: the CLI runs from the checkout of this repository', () => {
    const sandboxCheckout = job.steps.find((s) => s.uses?.startsWith('actions/checkout') && s.with?.['path'] === 'sandbox');
    expect(sandboxCheckout?.with?.['repository']).toEqual(expect.stringMatching(/\/water-sandbox$/));
    const commands = job.steps.flatMap((s) => (s.run ?? '').split('\n'));
    const npx = commands.flatMap((line) => [...line.matchAll(/\bnpx\b[^|;&)]*/g)].map((m) => m[0].trim()));
    expect(npx.length).toBeGreaterThan(0);
    for (const call of npx) expect(call).toMatch(/^npx --prefix sandbox water-sandbox /);
    expect(commands.join('\n')).not.toMatch(/water-sandbox@/);
  });

  (hasCurl ? it : it.skip)('runs its shell steps, in order, against a started sandbox: the account, the alert, the clock', async () => {
    const sandbox = await startTestSandbox();
    const { steps, githubEnv: exported, npmLog } = await runWorkflowSteps(job, sandbox.url);
    for (const step of steps) expect(step).toEqual({ step: step.step, status: 0, stderr: '' });
    const ran = steps.map((s) => s.step);

    expect(ran).toEqual(expect.arrayContaining(['Start the sandbox', 'Sandbox account', 'Tests that fire an alert on the sandbox']));
    expect(npmLog).toMatch(/^sandbox: npm start$/m);
    expect(exported).toMatch(/^WATER_API_KEY=\S+$/m);
    expect(exported).toMatch(new RegExp(`^SANDBOX_URL=${sandbox.url}$`, 'm'));

    // The two accounts it made: the one for later steps, and the one that fired an alert, an hour on.
    const { accounts } = await sandbox.deps.store.accounts.list({ limit: 100 });
    const made = await Promise.all(accounts.filter((a) => a.origin !== 'fixture').map((a) => sandbox.deps.store.accounts.get(a.accountId)));
    expect(made).toHaveLength(2);
    expect(made.map((doc) => doc!.locations.length)).toEqual([2, 2]);
    const fired = made.find((doc) => doc!.alerts.length > 0)!;
    expect(fired.alerts).toEqual([expect.objectContaining({ type: 'highLeak', active: false })]);
    expect(Math.round(fired.clock.offsetMs / 1000)).toBe(3600);
  }, 120_000);
});
