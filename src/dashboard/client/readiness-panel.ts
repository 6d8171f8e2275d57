import type { DrillOutcome, ReadinessCheck, ReadinessReport } from '../api-types.js';
import type { Context } from './context.js';
import { badge, byId, el, replaceKeepingFocus } from './dom.js';
import { shortId, shortTime } from './format.js';
import { sentence } from './widgets.js';

const STATUS_TEXT: Record<ReadinessCheck['status'], string> = {
  passed: 'passed',
  failed: 'failed',
  pending: 'pending',
  not_applicable: 'n/a',
};
const STATUS_KIND: Record<ReadinessCheck['status'], string> = {
  passed: 'ok',
  failed: 'failed',
  pending: 'pending',
  not_applicable: 'muted',
};

/**
 * The integration's readiness (GET /sandbox/readiness) as a checklist, reloaded as requests and
 * deliveries happen: each check with its status, and opened, the evidence that decided it and
 * what to do. The drills' buttons provoke the rare cases; the reset button opens a new window.
 */
export class ReadinessPanel {
  constructor(private readonly ctx: Context) {
    for (const button of document.querySelectorAll<HTMLButtonElement>('#readiness-panel [data-drill]')) {
      button.addEventListener('click', () => void this.#drill(button));
    }
    byId('readiness-reset').addEventListener(
      'click',
      (event) => void this.#reset(event.currentTarget as HTMLButtonElement),
    );
  }

  async refresh(): Promise<void> {
    const report = await this.ctx.api.get<ReadinessReport>('/sandbox/readiness');
    const { passed, failed, pending, notApplicable } = report.summary;
    byId('readiness-summary').textContent =
      `(${report.ready ? 'ready' : 'not ready'}: ${passed} passed, ${failed} failed, ${pending} pending${notApplicable ? `, ${notApplicable} n/a` : ''})`;
    byId('readiness-since').textContent =
      `Whether the integration is ready for production, graded from what the sandbox saw since ${shortTime(report.since, this.ctx.zone)}.`;
    const list = byId('readiness-checks');
    // Opened checks stay open when the list is drawn again.
    const open = new Set(
      [...list.querySelectorAll<HTMLDetailsElement>('details[open]')].map((d) => d.dataset['check']),
    );
    replaceKeepingFocus(
      list,
      report.checks.map((check) => this.#row(check, open.has(check.id))),
    );
  }

  #row(check: ReadinessCheck, open: boolean): HTMLLIElement {
    const zone = this.ctx.zone;
    const evidence = check.evidence.map((e) => {
      const what =
        'request' in e
          ? `${e.request} \u2192 ${e.status}`
          : 'deliveryId' in e
            ? `delivery ${shortId(e.deliveryId)}`
            : `subscription ${shortId(e.subscriptionId)}`;
      return el('li', {}, [
        el('span', { className: 'detail', text: `${shortTime(e.time, zone)} ` }),
        el('code', { className: 'wrap', text: what }),
        sentence('div', e.detail),
      ]);
    });
    const body = [
      evidence.length > 0
        ? el('ul', { className: 'evidence', 'aria-label': 'Evidence' }, evidence)
        : el('p', { className: 'detail', text: 'No evidence yet.' }),
      check.fix === null
        ? null
        : el('p', { className: check.status === 'failed' ? 'fix bad' : 'fix' }, [
            el('strong', { text: check.status === 'failed' ? 'Fix: ' : 'To show it: ' }),
            check.fix,
          ]),
      el('p', { className: 'detail' }, ['Guide: ', el('code', { text: check.docs })]),
    ];
    const summary = el('summary', { 'data-focus': check.id }, [
      badge(STATUS_TEXT[check.status], STATUS_KIND[check.status]),
      el('span', {}, [check.title, check.required ? null : el('span', { className: 'detail', text: ' (optional)' })]),
    ]);
    return el('li', { className: `row check ${check.status}`, 'data-check': check.id, 'data-status': check.status }, [
      el('details', { 'data-check': check.id, open }, [summary, ...body]),
    ]);
  }

  async #drill(button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    try {
      const outcome = await this.ctx.api.post<DrillOutcome>('/sandbox/readiness/drills', {
        drill: button.dataset['drill'],
      });
      this.ctx.announce(`Drill ${outcome.drill}: ${outcome.effect}.`);
      this.ctx.refresh('readiness', 'deliveries');
    } catch (error) {
      this.ctx.fail(error);
    } finally {
      button.disabled = false;
    }
  }

  async #reset(button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    try {
      await this.ctx.api.post<ReadinessReport>('/sandbox/readiness/reset');
      this.ctx.announce('A new readiness window is open: evidence from before it no longer counts.');
      this.ctx.refresh('readiness');
    } catch (error) {
      this.ctx.fail(error);
    } finally {
      button.disabled = false;
    }
  }
}
