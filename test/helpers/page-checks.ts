import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

import type { Page } from 'playwright-core';

/** The widths every page must work at: a phone, a tablet, a laptop. */
export const WIDTHS = [390, 768, 1280] as const;

/** Where the browser tests write screenshots (git-ignored). */
export const ARTIFACTS_DIR = resolve('test-artifacts');

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** How far the page and any open dialog reach past the viewport's width, in CSS pixels (0 = no sideways scrolling). */
export async function horizontalOverflow(page: Page): Promise<number> {
  // Text, not a function: the tests are compiled without the DOM's types.
  return page.evaluate<number>(`(() => {
    const root = document.documentElement;
    const dialogs = [...document.querySelectorAll('dialog[open]')].map((d) => d.scrollWidth - d.clientWidth);
    return Math.max(root.scrollWidth - root.clientWidth, document.body.scrollWidth - root.clientWidth, ...dialogs, 0);
  })()`);
}

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * The rule sets scanned: WCAG 2.0, 2.1 and 2.2 A/AA (2.2 adds target-size), axe's best practices,
 * and its experimental rules (label-content-name-mismatch was one while it was new; others may be).
 */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa', 'best-practice', 'experimental'];

/**
 * axe-core's rules (AXE_TAGS) on the page as it is now; answers the serious and critical
 * violations. Evaluated through the DevTools protocol, so the page's Content-Security-Policy
 * (no inline script) stays on.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<AxeFinding[]> {
  return (await accessibilityViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Every violation of AXE_TAGS's rules, whatever its impact. */
export async function accessibilityViolations(page: Page): Promise<AxeFinding[]> {
  await page.evaluate(axeSource);
  return page.evaluate<AxeFinding[]>(`(async () => {
    const result = await window.axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(AXE_TAGS)} } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  })()`);
}

/** A screenshot in test-artifacts/, of the whole page or (for a dialog) of the screen; answers its path. */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage });
  return path;
}
