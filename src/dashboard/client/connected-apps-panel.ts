import type { ConnectedApp } from '../api-types.js';
import type { Context } from './context.js';
import { byId, el, emptyState, replaceKeepingFocus } from './dom.js';
import { shortTime } from './format.js';
import { busy, confirmAction } from './widgets.js';

/**
 * The applications of other accounts that a user of this account allowed on the consent page
 * (GET /sandbox/connected-apps): who made each, who allowed it and when, its last use, and a
 * Revoke button that asks first and then ends its tokens at once.
 */
export class ConnectedAppsPanel {
  constructor(private readonly ctx: Context) {
    byId('connected-apps').addEventListener('click', (event) => {
      const button = (event.target as Element).closest<HTMLButtonElement>('button[data-revoke]');
      const clientId = button?.dataset['revoke'];
      if (button && clientId !== undefined) void this.#revoke(button, clientId);
    });
  }

  async refresh(): Promise<void> {
    const { connectedApps } = await this.ctx.api.get<{ connectedApps: ConnectedApp[] }>('/sandbox/connected-apps');
    const zone = this.ctx.zone;
    byId('connected-apps-count').textContent = `(${connectedApps.length})`;
    replaceKeepingFocus(
      byId('connected-apps'),
      connectedApps.length === 0
        ? [
            emptyState(
              'None. When a user of this account allows an application another account registered (on its consent page), it is listed here until you revoke it.',
            ),
          ]
        : connectedApps.map((app) =>
            el('li', { className: 'row', 'data-client-id': app.clientId }, [
              el('div', { className: 'row-main' }, [
                el('strong', { className: 'row-line', text: app.applicationName }),
                app.applicationWebsite === null
                  ? null
                  : el('span', { className: 'row-line detail wrap', text: app.applicationWebsite }),
                el('span', {
                  className: 'row-line detail',
                  text: `registered by ${app.ownerAccountName} · allowed by ${app.allowedBy} on ${shortTime(app.allowedAt, zone)} · ${app.lastUsedAt === null ? 'not used yet' : `last used ${shortTime(app.lastUsedAt, zone)}`}`,
                }),
              ]),
              el('div', { className: 'row-side' }, [
                el('button', {
                  type: 'button',
                  className: 'small danger',
                  'data-revoke': app.clientId,
                  'data-focus': `revoke-${app.clientId}`,
                  'aria-label': `Revoke ${app.applicationName}`,
                  text: 'Revoke',
                }),
              ]),
            ]),
          ),
    );
  }

  async #revoke(button: HTMLButtonElement, clientId: string): Promise<void> {
    const name = button.getAttribute('aria-label')?.replace(/^Revoke /, '') ?? clientId;
    const confirmed = await confirmAction(
      `Revoke ${name}?`,
      'Its access and refresh tokens stop working at once, and its users are asked again on the consent page next time.',
      'Revoke',
    );
    if (!confirmed) return;
    try {
      const { revokedTokens } = await busy(button, () =>
        this.ctx.api.request<{ revokedTokens: number }>(
          'DELETE',
          `/sandbox/connected-apps/${encodeURIComponent(clientId)}`,
        ),
      );
      this.ctx.announce(`${name} revoked: ${revokedTokens} of its tokens ended.`);
      this.ctx.refresh('connectedApps');
    } catch (error) {
      this.ctx.fail(error);
    }
  }
}
