import type { Delivery, Paged, Subscription } from '../api-types.js';
import { DASHBOARD_PATHS } from '../page-config.js';
import { ApiError } from './api.js';
import type { Context } from './context.js';
import { badge, byId, el, emptyState, onSubmit, replaceKeepingFocus } from './dom.js';
import { busy, confirmAction, idWithCopy } from './widgets.js';

/** How the delivery log shows a confirmation token that is for the endpoint only (HIDDEN_TOKEN of src/webhooks/presenter.ts). */
const HIDDEN_TOKEN = '[hidden]';

/** A button of a subscription's row; its action is what the click handler does, and keeps its focus across redraws. */
const rowButton = (s: Subscription, action: 'confirm' | 'delete', text: string, className: string): HTMLButtonElement =>
  el('button', {
    type: 'button',
    className,
    'data-action': action,
    'data-focus': `${action}-${s.subscriptionId}`,
    'aria-label': `${text} subscription ${s.subscriptionId}`,
    text,
  });

/**
 * The account's subscriptions, and what a partner's app would do with them: subscribe an
 * endpoint to the selected location, confirm a pending one, delete one.
 */
export class SubscriptionsPanel {
  #subscriptions: Subscription[] = [];
  readonly #listeners: ((subscriptions: Subscription[]) => void)[] = [];

  constructor(private readonly ctx: Context) {
    onSubmit('add-subscription', (form) => this.#subscribe(form));
    for (const button of document.querySelectorAll<HTMLButtonElement>('[data-demo-receiver]')) {
      button.addEventListener('click', () => {
        const status = button.dataset['demoReceiver'];
        const url = new URL(DASHBOARD_PATHS.demoReceiver, location.origin);
        if (status && status !== '200') url.searchParams.set('status', status);
        const input = byId<HTMLInputElement>('endpoint');
        input.value = url.href;
        input.focus();
      });
    }
    byId('subscriptions').addEventListener('click', (event) => {
      const button = (event.target as Element).closest<HTMLButtonElement>('button[data-action]');
      const id = button?.closest<HTMLElement>('[data-subscription-id]')?.dataset['subscriptionId'];
      if (!button || !id) return;
      if (button.dataset['action'] === 'confirm') void this.#confirm(button, id);
      if (button.dataset['action'] === 'delete') void this.#delete(button, id);
    });
    ctx.onSelect(() => this.#renderTarget());
    this.#renderTarget();
  }

  get list(): Subscription[] {
    return this.#subscriptions;
  }

  onChange(listener: (subscriptions: Subscription[]) => void): void {
    this.#listeners.push(listener);
  }

  #renderTarget(): void {
    byId('subscribe-location').textContent = this.ctx.locationName(this.ctx.selected);
  }

  async refresh(): Promise<void> {
    const page = await this.ctx.api.get<Paged & { subscriptions: Subscription[] }>('/v1/subscriptions?perPage=100');
    this.#subscriptions = page.subscriptions;
    byId('subscriptions-count').textContent = `(${page.total})`;
    replaceKeepingFocus(
      byId('subscriptions'),
      page.subscriptions.length === 0
        ? [
            emptyState(
              'No subscriptions yet. Subscribe an endpoint below (the demo receiver works without any setup), then confirm it.',
            ),
          ]
        : page.subscriptions.map((s) =>
            el('li', { className: 'row', 'data-subscription-id': s.subscriptionId, 'data-status': s.status }, [
              el('div', { className: 'row-main' }, [
                badge(s.status),
                ' ',
                el('span', { text: this.ctx.locationName(s.locationId) }),
                ' → ',
                el('code', { className: 'wrap', text: s.endpoint }),
              ]),
              el('div', { className: 'row-side' }, [
                idWithCopy(s.subscriptionId, 'subscription id'),
                s.status === 'pending' ? rowButton(s, 'confirm', 'Confirm', 'small') : null,
                rowButton(s, 'delete', 'Delete', 'small secondary'),
              ]),
            ]),
          ),
    );
    for (const listener of this.#listeners) listener(this.#subscriptions);
  }

  async #subscribe(form: HTMLFormElement): Promise<void> {
    const endpoint = byId<HTMLInputElement>('endpoint').value.trim();
    const locationId = this.ctx.selected;
    try {
      const s = await busy(form.querySelector('button[type="submit"]'), () =>
        this.ctx.api.post<Subscription>(`/v1/locations/${encodeURIComponent(locationId)}/subscriptions`, { endpoint }),
      );
      this.ctx.announce(
        `Subscribed ${s.endpoint} to ${this.ctx.locationName(locationId)}: ${s.status}. The confirmation message is on its way; Confirm it as your app would.`,
      );
      this.ctx.refresh('subscriptions', 'deliveries');
    } catch (error) {
      this.ctx.fail(error);
    }
  }

  /**
   * Does what the partner's app does with the confirmation message: calls its confirmationUrl,
   * read from the confirmation delivery in the log. When that token is used up or expired, a
   * fresh one from POST /sandbox/subscriptions/{id}/confirmation (which also sends it to the endpoint).
   * A hosted sandbox shows neither for an endpoint of the partner's own (the token is for the
   * endpoint only): then the fresh message went to the endpoint, and the app there confirms.
   */
  async #confirm(button: HTMLButtonElement, subscriptionId: string): Promise<void> {
    const id = encodeURIComponent(subscriptionId);
    const confirmWith = async (confirmationUrl: string): Promise<void> => {
      const url = new URL(confirmationUrl);
      await this.ctx.api.get(url.pathname + url.search);
    };
    try {
      const outcome = await busy(button, async (): Promise<{ sentTo: string } | null> => {
        const sent = await this.ctx.api.get<{ deliveries: Delivery[] }>(
          `/sandbox/deliveries?subscriptionId=${id}&kind=confirmation&perPage=1`,
        );
        const payload = sent.deliveries[0]?.payload as
          { confirmationUrl?: unknown; confirmationToken?: unknown } | undefined;
        if (typeof payload?.confirmationUrl === 'string' && payload.confirmationToken !== HIDDEN_TOKEN) {
          try {
            await confirmWith(payload.confirmationUrl);
            return null;
          } catch (error) {
            if (!(error instanceof ApiError) || error.status === 0 || error.status >= 500) throw error;
          }
        }
        const fresh = await this.ctx.api.post<{ confirmationUrl?: string; endpoint?: string }>(
          `/sandbox/subscriptions/${id}/confirmation`,
        );
        if (fresh.confirmationUrl === undefined) return { sentTo: fresh.endpoint ?? 'the endpoint' };
        await confirmWith(fresh.confirmationUrl);
        return null;
      });
      if (outcome) {
        this.ctx.announce(
          `A fresh confirmation message was sent to ${outcome.sentTo}. On this hosted sandbox its token reaches the endpoint only: the app there confirms it with the confirmationUrl it carries.`,
        );
      } else {
        this.ctx.announce('Subscription confirmed: it receives alert notifications from now on.');
      }
      this.ctx.refresh('subscriptions', 'deliveries');
    } catch (error) {
      this.ctx.fail(error);
    }
  }

  async #delete(button: HTMLButtonElement, subscriptionId: string): Promise<void> {
    if (
      !(await confirmAction(
        'Delete this subscription?',
        `Subscription ${subscriptionId} stops receiving notifications; its pending deliveries are cancelled.`,
        'Delete',
      ))
    )
      return;
    try {
      await busy(button, () =>
        this.ctx.api.request('DELETE', `/v1/subscriptions/${encodeURIComponent(subscriptionId)}`),
      );
      this.ctx.announce('Subscription deleted.');
      this.ctx.refresh('subscriptions', 'deliveries');
    } catch (error) {
      this.ctx.fail(error);
    }
  }
}
