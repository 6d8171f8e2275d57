import type { Delivery, DeliveryAttempt } from '../api-types.js';
import type { Context } from './context.js';
import { attemptError, deliveryTitle, lastAnswer } from './delivery-text.js';
import { badge, byId, el } from './dom.js';
import { prettyJson, shortId, shortTime } from './format.js';
import { busy, idWithCopy, sentence } from './widgets.js';

/**
 * One delivery in full, in a modal dialog: the request as sent (URL, headers, JSON body), every
 * attempt with the receiver's answer, and Redeliver. What a partner needs to see why their
 * receiver failed without reading the sandbox's logs. It follows the delivery live while open.
 */
export class Inspector {
  #deliveryId: string | null = null;
  readonly #dialog: HTMLDialogElement;

  constructor(private readonly ctx: Context) {
    this.#dialog = byId<HTMLDialogElement>('inspector', HTMLDialogElement);
    this.#dialog.addEventListener('close', () => {
      const id = this.#deliveryId;
      this.#deliveryId = null;
      if (id) document.querySelector<HTMLElement>(`[data-open-delivery="${CSS.escape(id)}"]`)?.focus();
    });
    this.#dialog.addEventListener('click', (event) => {
      // A click on the backdrop (the dialog element itself, outside its content) closes it.
      if (event.target === this.#dialog) this.#dialog.close();
    });
  }

  get openId(): string | null {
    return this.#deliveryId;
  }

  async open(deliveryId: string): Promise<void> {
    this.#deliveryId = deliveryId;
    try {
      const delivery = await this.ctx.api.get<Delivery>(`/sandbox/deliveries/${encodeURIComponent(deliveryId)}`);
      this.#render(delivery);
      if (!this.#dialog.open) this.#dialog.showModal();
      byId('inspector-close').focus();
    } catch (error) {
      this.#deliveryId = null;
      this.ctx.fail(error);
    }
  }

  async refresh(): Promise<void> {
    if (this.#deliveryId === null || !this.#dialog.open) return;
    const delivery = await this.ctx.api.get<Delivery>(`/sandbox/deliveries/${encodeURIComponent(this.#deliveryId)}`);
    const focused =
      document.activeElement instanceof HTMLElement && this.#dialog.contains(document.activeElement)
        ? document.activeElement.id
        : '';
    this.#render(delivery);
    if (focused) document.getElementById(focused)?.focus();
  }

  #render(d: Delivery): void {
    const zone = this.ctx.zone;
    const close = el('button', { type: 'button', id: 'inspector-close', className: 'secondary', text: 'Close' });
    close.addEventListener('click', () => this.#dialog.close());
    const redeliver = el('button', { type: 'button', id: 'redeliver', text: 'Redeliver' });
    redeliver.addEventListener('click', () => void this.#redeliver(redeliver, d));
    const body = d.method === 'POST' ? JSON.stringify(d.payload, null, 2) : null;
    this.#dialog.dataset['deliveryId'] = d.deliveryId;
    this.#dialog.dataset['state'] = d.state;
    this.#dialog.replaceChildren(
      el('div', { className: 'dialog-head' }, [
        el('h2', { id: 'inspector-title' }, [`${deliveryTitle(d)} `, badge(d.state)]),
        el('div', { className: 'dialog-buttons' }, [redeliver, close]),
      ]),
      el('dl', { className: 'facts' }, [
        fact('Delivery', idWithCopy(d.deliveryId, 'delivery id')),
        fact('Created', shortTime(d.createdAt, zone)),
        fact('Location', this.ctx.locationName(d.locationId)),
        d.subscriptionId ? fact('Subscription', idWithCopy(d.subscriptionId, 'subscription id')) : null,
        d.redeliveryOf ? fact('Redelivery of', idWithCopy(d.redeliveryOf, 'delivery id')) : null,
        fact('Outcome', `${d.state}: ${lastAnswer(d)}`),
        d.state === 'pending' && d.nextAttemptAt ? fact('Next attempt', shortTime(d.nextAttemptAt, zone)) : null,
        d.note ? fact('Note', sentence('span', d.note)) : null,
      ]),
      el('section', { 'aria-labelledby': 'inspector-request' }, [
        el('h3', { id: 'inspector-request', text: 'Request' }),
        el('p', {}, [el('code', { className: 'wrap', id: 'inspector-url', text: `${d.method} ${d.target}` })]),
        el('table', { className: 'headers', id: 'inspector-headers' }, [
          el('caption', { className: 'visually-hidden', text: 'Request headers' }),
          el(
            'tbody',
            {},
            Object.entries(d.requestHeaders).map(([name, value]) =>
              el('tr', {}, [
                el('th', { scope: 'row', text: name }),
                el('td', {}, [el('code', { className: 'wrap', text: value })]),
              ]),
            ),
          ),
        ]),
        el('p', {
          className: 'hint',
          text: 'X-Sandbox-Delivery-Id is the same on every retry (drop duplicates by it); X-Sandbox-Attempt counts the attempts.',
        }),
        body === null
          ? el('p', { className: 'hint', text: 'No body: a GET check that the endpoint answers JSON.' })
          : el('pre', { id: 'inspector-body', tabindex: 0, 'aria-label': 'Request body' }, [body]),
      ]),
      el('section', { 'aria-labelledby': 'inspector-attempts' }, [
        el('h3', { id: 'inspector-attempts', text: `Attempts (${d.attempts.length})` }),
        d.attempts.length === 0
          ? el('p', { className: 'empty', text: d.note ?? 'Not sent yet: the first attempt is on its way.' })
          : el(
              'ol',
              { className: 'attempts', id: 'inspector-attempt-list' },
              d.attempts.map((a, i) => attempt(a, i + 1, zone)),
            ),
      ]),
    );
  }

  async #redeliver(button: HTMLButtonElement, d: Delivery): Promise<void> {
    try {
      const copy = await busy(button, () =>
        this.ctx.api.post<Delivery>(`/sandbox/deliveries/${encodeURIComponent(d.deliveryId)}/redeliver`),
      );
      this.ctx.announce(`Redelivering ${deliveryTitle(d)} as delivery ${shortId(copy.deliveryId)}.`);
      this.ctx.refresh('deliveries');
      await this.open(copy.deliveryId);
    } catch (error) {
      this.ctx.fail(error);
    }
  }
}

function fact(name: string, value: Node | string): HTMLDivElement {
  return el('div', {}, [el('dt', { text: name }), el('dd', {}, [value])]);
}

function attempt(a: DeliveryAttempt, n: number, zone: string): HTMLLIElement {
  const ok = a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300;
  const error = attemptError(a);
  return el(
    'li',
    { className: ok ? 'attempt ok' : 'attempt bad', 'data-attempt': n, 'data-status': a.statusCode ?? 'none' },
    [
      el('div', { className: 'attempt-head' }, [
        el('strong', { text: `#${n}` }),
        ' ',
        badge(a.statusCode === null ? 'no answer' : String(a.statusCode), ok ? 'ok' : 'failed'),
        el('span', { className: 'detail', text: ` ${shortTime(a.at, zone)} · ${a.latencyMs} ms` }),
      ]),
      error ? el('p', { className: 'bad', text: `Error: ${error}` }) : null,
      ...a.warnings.map((w) => el('p', { className: 'warn', text: `Warning: ${w}` })),
      a.responseExcerpt !== null
        ? el('div', {}, [
            el('div', { className: 'detail', text: 'The receiver answered:' }),
            el('pre', { tabindex: 0, 'aria-label': `Answer to attempt ${n}` }, [
              a.responseExcerpt === '' ? '(empty body)' : prettyJson(a.responseExcerpt),
            ]),
          ])
        : null,
    ],
  );
}
