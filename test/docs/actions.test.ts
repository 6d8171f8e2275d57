import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import {
  actionFolder,
  freePort,
  isRunning,
  jobOf,
  runWorkflowSteps,
  trackedProcesses,
  type WorkflowRun,
} from './workflow.js';

/**
 * The two actions of this repository (action.yml, readiness/action.yml) in jobs of their own,
 * run as GitHub runs them (test/docs/workflow.ts): their inputs, what they write to the files
 * GitHub gives a step, what they print as workflow commands, and how they fail.
 */

const SANDBOX = 'your-org/water-sandbox@v0.3.0';
const READINESS = 'your-org/water-sandbox/readiness@v0.3.0';

/** Runs a job written as YAML steps, against a fresh folder of the actions whose sandbox takes a free port. */
async function job(steps: string, options: { port?: number } = {}): Promise<WorkflowRun & { port: number }> {
  const port = options.port ?? (await freePort());
  const run = await runWorkflowSteps(
    jobOf(`jobs:\n  test:\n    steps:\n${steps.replace(/^/gm, '      ')}`, 'the test'),
    { actions: actionFolder({ port }) },
  );
  return { ...run, port };
}

const statusOf = (run: WorkflowRun): Record<string, number | null> =>
  Object.fromEntries(run.steps.map((s) => [s.step, s.status]));

describe(`uses: ${SANDBOX}`, () => {
  it('takes its inputs: the locations, the seed, and settings (comments and blank lines left out, ADMIN_TOKEN used for the account); later steps get the account and the command', async () => {
    const run = await job(`
- uses: ${SANDBOX}
  id: sandbox
  with:
    locations: 3
    seed: 7
    settings: |
      # the admin calls need a token
      ADMIN_TOKEN=ci-admin-token

      WEBHOOK_BACKOFF_MS=200
- name: later
  run: |
    set -u
    echo "ids: $WATER_LOCATION_IDS"
    echo "clock: $(water-sandbox clock)"
    node -e 'fetch(process.env.SANDBOX_URL + "/sandbox/admin/accounts", { headers: { authorization: "Bearer ci-admin-token" } }).then(async (r) => console.log("admin:", r.status, (await r.json()).accounts.length))'
    node -e 'fetch(process.env.SANDBOX_URL + "/sandbox/admin/accounts").then((r) => console.log("without the token:", r.status))'
`);
    expect(statusOf(run)).toEqual({
      [`${SANDBOX}/Build the sandbox`]: 0,
      [`${SANDBOX}/Start the sandbox`]: 0,
      [`${SANDBOX}/A fresh account`]: 0,
      later: 0,
    });
    const later = run.steps.at(-1)!.output;
    expect(later).toMatch(/^ids: [\w-]+ [\w-]+ [\w-]+$/m);
    expect(later).toMatch(/^clock: \d{4}-\d\d-\d\dT/m);
    expect(later).toMatch(/^admin: 200 \d+$/m);
    expect(later).toMatch(/^without the token: 401$/m);
    expect(run.outputs['sandbox']!['location-ids']!.split(' ')).toHaveLength(3);
    expect(run.outputs['sandbox']!['url']).toBe(`http://127.0.0.1:${run.port}`);
  }, 60_000);

  it('with stop: true, stops the sandbox of an earlier step (SIGTERM: it exits on its own) and prints its log', async () => {
    const run = await job(`
- uses: ${SANDBOX}
  id: sandbox
- name: its pid
  run: cat "$RUNNER_TEMP/water-sandbox-$(echo "$SANDBOX_URL" | sed 's/.*://')/pid"
- uses: ${SANDBOX}
  if: always()
  with:
    stop: true
`);
    expect(run.failed).toBe(false);
    const pid = run.steps.find((s) => s.step === 'its pid')!.output.trim();
    const stop = run.steps.find((s) => s.step === `${SANDBOX}/Stop the sandbox`)!;
    expect(stop.output).toContain(
      `water-sandbox: stopped (pid ${pid})\n::group::The sandbox's log (last 200 lines of `,
    );
    expect(stop.output).toMatch(
      /^water-sandbox is running at http:\/\/localhost:\d+ \(public URL http:\/\/127\.0\.0\.1:\d+\)$/m,
    );
    expect(run.annotations).toEqual([]);
    // It stopped as on SIGTERM, before the job's end would have killed it.
    expect(stop.output).toMatch(/"msg":"stopped"/);
    expect(isRunning(Number(pid))).toBe(false);
  }, 60_000);

  it('refuses a settings line that is not NAME=value, and starts nothing', async () => {
    const run = await job(`
- uses: ${SANDBOX}
  with:
    settings: WEBHOOK_BACKOFF_MS 200
`);
    expect(run.failed).toBe(true);
    expect(run.annotations).toEqual([
      {
        level: 'error',
        title: 'water-sandbox',
        message: 'settings: each line is NAME=value (docs/configuration.md); got: WEBHOOK_BACKOFF_MS 200',
      },
    ]);
    expect(run.skipped).toContain(`${SANDBOX}/A fresh account`);
  }, 60_000);

  it("fails with the sandbox's own words when it cannot start (a bad setting), the log in the step's output", async () => {
    const run = await job(`
- uses: ${SANDBOX}
  with:
    settings: WEBHOOK_TIMEOUT_MS=soon
`);
    expect(run.failed).toBe(true);
    expect(run.annotations).toEqual([
      { level: 'error', title: 'water-sandbox', message: 'the sandbox did not start; its log follows' },
    ]);
    expect(run.steps.find((s) => s.status !== 0)!.output).toMatch(/WEBHOOK_TIMEOUT_MS/);
  }, 60_000);

  it('the job leaves nothing running: the runner ends the sandbox with the job', async () => {
    const run = await job(`
- uses: ${SANDBOX}
`);
    expect(run.failed).toBe(false);
    const pid = Number(readFileSync(`${run.runnerTemp}/water-sandbox-${run.port}/pid`, 'utf8'));
    expect(pid).toBeGreaterThan(1);
    expect(isRunning(pid)).toBe(false);
    expect(trackedProcesses(run.trackingId)).toEqual([]);
  }, 60_000);
});

describe(`uses: ${SANDBOX} with image`, () => {
  const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
  const published = `ghcr.io/your-org/water-sandbox:${version}`;

  /**
   * A step that puts a stand-in `docker` on the job's PATH: it logs its calls; knows one image,
   * `published`; `cp` out of it gives the CLI's stand-in (this checkout's sources); `run` starts
   * the server from them in the foreground with only the environment its --env flags name, as a
   * container's would be.
   */
  const fakeDocker = (): string => {
    const standIn = join(mkdtempSync(join(tmpdir(), 'fake-image-')), 'water-sandbox.js');
    writeFileSync(
      standIn,
      `import ${JSON.stringify(pathToFileURL(resolve('test/store/crash/register-ts.mjs')).href)};\nawait import(${JSON.stringify(pathToFileURL(resolve('src/main.ts')).href)});\n`,
    );
    const script = `#!/usr/bin/env bash
echo "docker $*" >> "$RUNNER_TEMP/docker.log"
case "$1" in
  pull) [ "$2" = ${JSON.stringify(published)} ] || { echo "Error response from daemon: manifest unknown" >&2; exit 1; } ;;
  create) echo fake-container ;;
  cp) cp ${JSON.stringify(standIn)} "$3" ;;
  rm) echo fake-container ;;
  run)
    shift
    env=()
    while [ "$1" != ${JSON.stringify(published)} ]; do
      case "$1" in --env=*) name="\${1#--env=}"; env+=("$name=\${!name}") ;; esac
      shift
    done
    exec env -i PATH="$PATH" "\${env[@]}" ${JSON.stringify(process.execPath)} ${JSON.stringify(standIn)} ;;
  *) echo "docker $1: not in this stand-in" >&2; exit 1 ;;
esac
`;
    return `- name: docker
  run: |
    mkdir -p "$RUNNER_TEMP/docker-bin"
    cat > "$RUNNER_TEMP/docker-bin/docker" <<'DOCKER'
${script.replace(/^/gm, '    ').trimEnd()}
    DOCKER
    chmod +x "$RUNNER_TEMP/docker-bin/docker"
    echo "$RUNNER_TEMP/docker-bin" >> "$GITHUB_PATH"
`;
  };

  it("published: pulls the image of the action's repository and version, runs it on the runner's network with the settings, and builds nothing; the readiness action grades with its command line", async () => {
    const run = await job(`${fakeDocker()}
- uses: ${SANDBOX}
  id: sandbox
  with:
    image: published
    settings: |
      ADMIN_TOKEN=ci-admin-token
- name: later
  run: |
    echo "clock: $(water-sandbox clock)"
    node -e 'fetch(process.env.SANDBOX_URL + "/sandbox/admin/accounts", { headers: { authorization: "Bearer ci-admin-token" } }).then((r) => console.log("admin:", r.status))'
- uses: ${READINESS}
  with:
    on-not-ready: warn
    wait: 0
- uses: ${SANDBOX}
  if: always()
  with:
    stop: true
`);
    expect(run.steps.filter((s) => s.status !== 0).map((s) => [s.step, s.output])).toEqual([]);
    const docker = readFileSync(join(run.runnerTemp, 'docker.log'), 'utf8').trim().split('\n');
    expect(docker).toEqual([
      `docker pull ${published}`,
      `docker create ${published}`,
      expect.stringMatching(/^docker cp fake-container:\/app\/dist\/water-sandbox\.js dist\/water-sandbox\.js$/),
      'docker rm fake-container',
      `docker run --rm --name water-sandbox-${run.port} --network host --env=HOST --env=PUBLIC_URL --env=DATA_DIR --env=PORT --env=ADMIN_TOKEN ${published}`,
    ]);
    // Nothing built, in the action's folder or anywhere.
    expect(run.npmLog).toBe('');
    expect(run.outputs['sandbox']!['url']).toBe(`http://127.0.0.1:${run.port}`);
    const later = run.steps.find((s) => s.step === 'later')!.output;
    expect(later).toMatch(/^clock: \d{4}-\d\d-\d\dT/m);
    expect(later).toMatch(/^admin: 200$/m);
    expect(run.steps.find((s) => s.step === `${READINESS}/Build the sandbox's command line`)!.output).toMatch(
      /^water-sandbox: already built in /m,
    );
    // Stopped by SIGTERM through docker, the server's own way out in its log.
    expect(run.steps.find((s) => s.step === `${SANDBOX}/Stop the sandbox`)!.output).toMatch(/"msg":"stopped"/);
  }, 90_000);

  it('fails, saying what to do, when the image cannot be pulled (a version never released)', async () => {
    const run = await job(`${fakeDocker()}
- uses: your-org/water-sandbox@main
  with:
    image: ghcr.io/your-org/water-sandbox:9.9.9
`);
    expect(run.failed).toBe(true);
    expect(run.annotations).toEqual([
      {
        level: 'error',
        title: 'water-sandbox',
        message:
          "cannot pull the image ghcr.io/your-org/water-sandbox:9.9.9 (a published image is a released version's: pin the action to a release tag, or leave image out to build)",
      },
    ]);
    expect(run.skipped).toEqual([
      'your-org/water-sandbox@main/Start the sandbox',
      'your-org/water-sandbox@main/A fresh account',
      'your-org/water-sandbox@main/Stop the sandbox',
    ]);
  }, 60_000);
});

describe(`uses: ${READINESS}`, () => {
  it('with on-not-ready: warn, passes the step with a warning per required check, the summary table, and ready=false', async () => {
    const run = await job(`
- uses: ${SANDBOX}
- uses: ${READINESS}
  id: readiness
  with:
    on-not-ready: warn
    wait: 5
`);
    expect(run.failed).toBe(false);
    expect(run.annotations.map((a) => a.level)).toEqual(Array(9).fill('warning'));
    expect(run.outputs['readiness']).toEqual({
      ready: 'false',
      'junit-file': `${run.runnerTemp}/water-sandbox-readiness.xml`,
    });
    expect(run.summary).toMatch(/^### Integration readiness: not ready \(9 required checks failed or pending\)$/m);
    expect(run.summary.split('\n').filter((l) => l.startsWith('| '))).toHaveLength(15);
    // Graded the account the first action made, with its key.
    expect(run.steps.find((s) => s.step.endsWith('Grade the integration'))!.output).toMatch(
      /^water-sandbox readiness: grading account \S+ at http:\/\/127\.0\.0\.1:\d+ \(the key of WATER_API_KEY\)$/m,
    );
  }, 60_000);

  it('fails on an on-not-ready that is neither fail nor warn, before grading', async () => {
    const run = await job(`
- uses: ${SANDBOX}
- uses: ${READINESS}
  with:
    on-not-ready: ignore
`);
    expect(statusOf(run)[`${READINESS}/Grade the integration`]).toBe(2);
    expect(run.annotations).toEqual([
      { level: 'error', title: 'water-sandbox readiness', message: 'on-not-ready must be fail or warn; got: ignore' },
    ]);
  }, 60_000);

  it('on its own, builds the command line in its folder, and fails (whatever on-not-ready says) when the sandbox cannot be reached', async () => {
    // Port 1: nothing listens there, and no test's server can take it.
    const closed = 1;
    const run = await job(`
- uses: ${READINESS}
  id: readiness
  with:
    sandbox-url: http://127.0.0.1:${closed}
    api-key: some-key
    on-not-ready: warn
`);
    expect(run.failed).toBe(true);
    expect(run.npmLog).toMatch(
      /^gha-action-water-sandbox-\w+: npm ci --no-audit --no-fund\ngha-action-water-sandbox-\w+: npm run build\n$/,
    );
    expect(run.steps.at(-1)!.output).toContain(`cannot reach the sandbox at http://127.0.0.1:${closed}`);
    expect(run.outputs['readiness']).toEqual({ ready: '', 'junit-file': '' });
    expect(run.masked).toEqual(['some-key']);
  }, 60_000);
});
