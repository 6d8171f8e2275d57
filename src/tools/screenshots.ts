import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import type { Page } from 'playwright-core';

import { loadConfig } from '../config.js';
import { silentLogger } from '../core/logger.js';
import { PACKAGE_ROOT } from '../core/package-info.js';
import { startSandbox } from '../server.js';
import { launchBrowser } from './chromium.js';

/**
 * `npm run screenshots`: the pictures of docs/demo.md, made from the sandbox as it is, so they
 * stay true. A sandbox in memory on a free port, the demo account's clock set to a fixed day (the
 * same readings every run), the real Chromium of the browser tests at 1280x720 following the demo
 * script: the view before a story, the burst pipe, the request behind a card, Share, the
 * audience's view, the all-clear, and the dashboard's Present link. Writes docs/images/*.png.
 */

const OUT_DIR = join(PACKAGE_ROOT, 'docs', 'images');
const VIEWPORT = { width: 1280, height: 720 };
/** A Tuesday in March: the day every picture is taken on (the account clock). */
const DAY = '2026-03-10T15:30:00Z';
const DEMO_KEY = 'demo_api_key_for_the_water_monitoring_sandbox';

const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: ':memory:', LOG_LEVEL: 'silent' });
const sandbox = await startSandbox(config, { logger: silentLogger });
const base = `http://localhost:${sandbox.port}`;
const written: string[] = [];

async function shot(page: Page, name: string): Promise<void> {
  const path = join(OUT_DIR, `${name}.png`);
  await page.screenshot({ path });
  written.push(path);
}

try {
  await mkdir(OUT_DIR, { recursive: true });
  const clock = await fetch(`${base}/sandbox/clock`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ now: DAY }),
  });
  if (!clock.ok) throw new Error(`setting the clock answered ${clock.status}`);

  const presenterBrowser = await launchBrowser(VIEWPORT, { timezoneId: 'America/New_York' });
  const audienceBrowser = await launchBrowser(VIEWPORT, { timezoneId: 'Europe/London' });
  try {
    const page = await presenterBrowser.context.newPage();
    await page.goto(`${base}/demo?prospect=Acme%20Insurance`);
    await page.fill('#email', 'demo@example.com');
    await page.fill('#password', 'demo-password');
    await Promise.all([page.waitForURL(/\/demo\?prospect=/), page.click('button[type=submit]')]);
    await page.locator('#live[data-state="live"]').waitFor();
    await page.selectOption('#story-choice', 'slow-leak-escalates');
    await shot(page, 'demo-start');

    // Next step twice: the drip starts (the first two steps at once), then the pipe bursts.
    for (const done of [2, 3]) {
      await page.click('#next');
      await page.locator(`#demo[data-steps-done="${done}"]`).waitFor();
    }
    await page.locator('#cards li[data-tone="ok"]').nth(1).waitFor();
    await page.locator('#notifications li[data-active="true"]').waitFor();
    // The animations of arrival end before the picture.
    await page.waitForTimeout(900);
    await shot(page, 'demo-burst');

    await page.locator('#cards li .card-raw').first().click();
    await page.locator('#raw-dialog[open]').waitFor();
    await shot(page, 'demo-request');
    await page.click('#close-raw');

    await page.click('#share');
    await page.click('#new-link');
    const url = await page.locator('#links input').first().inputValue();
    await page.locator('#share-status', { hasText: 'A new link' }).waitFor();
    await shot(page, 'demo-share');
    await page.click('#close-share');

    const audience = await audienceBrowser.context.newPage();
    await audience.goto(url);
    await audience.locator('#live[data-state="live"]').waitFor();
    await audience.waitForTimeout(900);
    await shot(audience, 'demo-audience');

    // Play on to the end: the slow leak falls back, then is repaired; the phone clears.
    await page.selectOption('#speed', '7200');
    await page.click('#play');
    await page.locator('#demo[data-story="ended"]').waitFor({ timeout: 60_000 });
    await page.locator('#notifications li[data-active="false"]').waitFor();
    await page.waitForTimeout(900);
    await shot(page, 'demo-all-clear');

    await page.goto(`${base}/`);
    await page.locator('#dashboard[data-ready="true"]').waitFor();
    await page.screenshot({
      path: join(OUT_DIR, 'dashboard-present.png'),
      clip: { x: 0, y: 0, width: 1280, height: 120 },
    });
    written.push(join(OUT_DIR, 'dashboard-present.png'));
  } finally {
    await presenterBrowser.close();
    await audienceBrowser.close();
  }
  process.stdout.write(`screenshots written:\n${written.map((p) => `  ${p}\n`).join('')}`);
} finally {
  await sandbox.stop();
}
