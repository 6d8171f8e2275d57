import type { Delivery, Paged, Subscription } from '../api-types.js';
import type { Context } from './context.js';
import { deliveryTitle, lastAnswer } from './delivery-text.js';
import { badge, byId, el, emptyState, replaceKeepingFocus } from './dom.js';
import { shortId, shortTime } from './format.js';
import type { Inspector } from './inspector.js';

const PER_PAGE = 30;

/**
 * The delivery log, newest first by creation (each row says when it was created, and when a
 * retried one was last attempted), filtered by subscription, kind and state. Each delivery opens
 * the inspector; the list updates in place as deliveries are sent and retried.
 */
export class DeliveriesPanel {
  constructor(
    private readonly ctx: Context,
    private readonly inspector: Inspector,
  ) {
    byId('delivery-filters').addEventListener('change', () => ctx.refresh('deliveries'));
    byId('deliveries').addEventListener('click', (event) => {
      const button = (event.target as Element).closest<HTMLButtonElement>('button[data-open-delivery]');
      if (button) void inspector.open(button.dataset['openDelivery'] ?? '');
    });
  }

  /** The subscription filter's choices follow the account's subscriptions. */
  showSubscriptions(subscriptions: Subscription[]): void {
    const select = byId<HTMLSelectElement>('filter-subscription');
    const chosen = select.value;
    select.replaceChildren(
      el('option', { value: '', text: 'All subscriptions' }),
      ...subscriptions.map((s) =>
        el('option', {
          value: s.subscriptionId,
          text: `${shortId(s.subscriptionId)} · ${this.ctx.locationName(s.locationId)}`,
        }),
      ),
    );
    select.value = subscriptions.some((s) => s.subscriptionId === chosen) ? chosen : '';
  }

  async refresh(): Promise<void> {
    const query = new URLSearchParams({ perPage: String(PER_PAGE) });
    let filtered = false;
    for (const [name, id] of [
      ['subscriptionId', 'filter-subscription'],
      ['kind', 'filter-kind'],
      ['state', 'filter-state'],
    ] as const) {
      const value = byId<HTMLSelectElement>(id).value;
      if (value === '') continue;
      query.set(name, value);
      filtered = true;
    }
    const page = await this.ctx.api.get<Paged & { deliveries: Delivery[] }>(`/sandbox/deliveries?${query.toString()}`);
    byId('deliveries-count').textContent =
      page.total > page.deliveries.length ? `(newest ${page.deliveries.length} of ${page.total})` : `(${page.total})`;
    replaceKeepingFocus(
      byId('deliveries'),
      page.deliveries.length === 0
        ? [
            emptyState(
              filtered
                ? 'No delivery matches these filters.'
                : 'No webhooks sent yet. Subscribe an endpoint and confirm it, then start an alert: each notification shows up here as it is sent.',
            ),
          ]
        : page.deliveries.map((d) => this.#row(d)),
    );
  }

  #row(d: Delivery): HTMLLIElement {
    const last = d.attempts[d.attempts.length - 1];
    const zone = this.ctx.zone;
    // The list is newest first by creation: the time shown is that one, so the order reads right.
    const when = `created ${shortTime(d.createdAt, zone)}`;
    const title = deliveryTitle(d);
    return el(
      'li',
      {
        className: `row delivery ${d.state}`,
        'data-delivery-id': d.deliveryId,
        'data-kind': d.kind,
        'data-state': d.state,
      },
      [
        el(
          'button',
          {
            type: 'button',
            className: 'row-open',
            'data-open-delivery': d.deliveryId,
            'data-focus': `open-${d.deliveryId}`,
          },
          // No aria-label: the button's name is what it shows, so a voice-control user can say what they see.
          [
            el('span', { className: 'row-line' }, [
              badge(d.state),
              ' ',
              el('strong', { text: title }),
              ' ',
              el('span', { className: 'detail', text: when }),
            ]),
            el('span', { className: 'row-line' }, [el('code', { className: 'wrap', text: `${d.method} ${d.target}` })]),
            el('span', { className: 'row-line detail' }, [
              `${d.attempts.length} attempt${d.attempts.length === 1 ? '' : 's'} · ${lastAnswer(d)}`,
              last && d.attempts.length > 1 ? ` · last at ${shortTime(last.at, zone)}` : '',
              d.state === 'pending' && d.nextAttemptAt ? ` · next ${shortTime(d.nextAttemptAt, zone)}` : '',
              d.redeliveryOf ? ` · redelivery of ${shortId(d.redeliveryOf)}` : '',
            ]),
          ],
        ),
      ],
    );
  }
}
