// The presenter view (issue 39; printed, not asserted): its first paint on the built server in the
// real Chromium of the browser tests (target: under 1 s), and what an audience of 50 watching one
// link costs the sandbox process while nothing happens (target: under 5 % of a core more than the
// same window with no viewer), then while a story plays (for the record). The sandbox is the
// built server (dist/water-sandbox.js) in its own process, as `npm start` runs it; CPU is that
// process's own (Linux /proc), over windows measured back to back in this run.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';

import { launchBrowser } from '../dist/tools/chromium.js';
import { startChild } from './lib/child.js';
import { median } from './lib/measure.js';

export const title = 'the presenter view: first paint, and the cost of an audience of 50';

const VIEWERS = 50;
const WINDOW_S = Number(process.env.BENCH_DEMO_WINDOW ?? 20);
const PAINTS = 5;

/** CPU seconds the process has used (user and system, at 100 ticks a second). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The share of a core the process used over `seconds` of real time while `during` runs. */
async function coreShare(pid, seconds, during = () => new Promise((resolve) => setTimeout(resolve, 100))) {
  const cpu = cpuSeconds(pid);
  const started = performance.now();
  let running = true;
  const work = (async () => {
    while (running) await during();
  })();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  running = false;
  await work;
  return (cpuSeconds(pid) - cpu) / ((performance.now() - started) / 1000);
}

/** A signed-in browser session, as the dashboard's form makes it: the cookie and the presenter page's CSRF token. */
async function signIn(url) {
  const form = await fetch(`${url}/`);
  const formCookie = form.headers.get('set-cookie').split(';')[0];
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(await form.text())[1];
  const signedIn = await fetch(`${url}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: formCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf_token: csrf, email: 'demo@example.com', password: 'demo-password' }),
  });
  const cookie = signedIn.headers.get('set-cookie').split(';')[0];
  const page = await (await fetch(`${url}/demo`, { headers: { cookie } })).text();
  const attribute = /data-config="([^"]*)"/.exec(page)[1];
  const config = JSON.parse(attribute.replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&'));
  const call = (method, path, body) =>
    fetch(`${url}${path}`, {
      method,
      headers: { cookie, 'x-csrf-token': config.csrfToken, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then(async (res) => ({ status: res.status, body: await res.json() }));
  return { cookie, call };
}

/** An audience member: the link's event stream, read as it comes; resolves once the first scene arrived. */
function watch(streamUrl) {
  return new Promise((resolve, reject) => {
    const req = request(streamUrl, { headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`${streamUrl}: ${res.statusCode}`));
      let scenes = 0;
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        scenes += chunk.split('"type":"scene"').length - 1;
        if (scenes === 1) resolve({ close: () => req.destroy(), scenes: () => scenes });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

export async function run() {
  const sandbox = await startChild({ DATA_DIR: ':memory:' });
  try {
    const presenter = await signIn(sandbox.url);

    // First paint: a fresh browser each time (nothing cached; the npm Chromium runs in one
    // process, where closing a context ends the browser), the session cookie set.
    const paints = [];
    const ready = [];
    let bytes = 0;
    const [name, value] = presenter.cookie.split('=');
    for (let i = 0; i < PAINTS; i++) {
      const browser = await launchBrowser({ width: 1280, height: 720 });
      try {
        await browser.context.addCookies([{ name, value, url: sandbox.url }]);
        const page = await browser.context.newPage();
        const sizes = [];
        // The page's event stream never ends: its body is not counted (nor waited for).
        page.on('response', (res) => {
          if (!(res.headers()['content-type'] ?? '').startsWith('text/event-stream'))
            sizes.push(
              res.body().then(
                (body) => body.length,
                () => 0,
              ),
            );
        });
        const started = performance.now();
        await page.goto(`${sandbox.url}/demo`);
        await page.locator('#demo[data-ready="true"]').waitFor();
        ready.push(performance.now() - started);
        paints.push(
          await page.evaluate(
            "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? performance.getEntriesByType('paint').at(-1)?.startTime",
          ),
        );
        bytes = (await Promise.all(sizes)).reduce((sum, size) => sum + size, 0);
      } finally {
        await browser.close();
      }
    }
    console.log(
      `first contentful paint of GET /demo at 1280x720, a fresh browser each (${PAINTS} loads): median ${median(paints).toFixed(0)} ms, slowest ${Math.max(...paints).toFixed(0)} ms (target: under 1000 ms); drawn with its chart (data-ready): median ${median(ready).toFixed(0)} ms; the page and what it loads: ${(bytes / 1024).toFixed(0)} kB`,
    );

    // The audience: 50 streams of one link, idle (the account's clock running in real time, nothing
    // happening: the view is drawn again every 20 s for the clock), then while a story plays.
    const link = await presenter.call('POST', '/demo/links');
    if (link.status !== 201) throw new Error(`the bench could not share the view: ${link.status}`);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idleAlone = await coreShare(sandbox.pid, WINDOW_S);
    const viewers = [];
    for (let i = 0; i < VIEWERS; i++) viewers.push(await watch(`${link.body.url}/events`));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idleWatched = await coreShare(sandbox.pid, WINDOW_S);
    const extra = idleWatched - idleAlone;
    console.log(
      `an audience of ${VIEWERS} on one link, idle, ${WINDOW_S} s windows: the sandbox used ${(idleAlone * 100).toFixed(2)} % of a core alone, ${(idleWatched * 100).toFixed(2)} % watched: ${(extra * 100).toFixed(2)} % of a core more (target: under 5 %); ${sandbox.rssMb().toFixed(0)} MB resident`,
    );

    // While a story plays (the presenter's page ticking it five times a second): for the record.
    const tick = async () => {
      await presenter.call('POST', '/demo/story/tick');
      await new Promise((resolve) => setTimeout(resolve, 200));
    };
    const loaded = await presenter.call('POST', '/demo/story', { scenario: 'slow-leak-escalates' });
    if (loaded.status !== 201) throw new Error(`the bench could not load a story: ${loaded.status}`);
    const playFor = async () => {
      await presenter.call('POST', '/demo/story/restart');
      await presenter.call('POST', '/demo/story/play');
      return coreShare(sandbox.pid, 10, tick);
    };
    const playingWatched = await playFor();
    const scenesSeen = viewers.map((v) => v.scenes());
    for (const v of viewers) v.close();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const playingAlone = await playFor();
    console.log(
      `a story playing (ticked every 200 ms), 10 s windows: ${(playingAlone * 100).toFixed(1)} % of a core with no viewer, ${(playingWatched * 100).toFixed(1)} % with ${VIEWERS} (each viewer got ${median(scenesSeen)} scenes)`,
    );
  } finally {
    await sandbox.stop();
  }
}
