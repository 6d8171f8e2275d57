import type { JournalEntry } from '../api-types.js';
import type { Context } from './context.js';
import { badge, byId, el, emptyState } from './dom.js';
import { prettyJson, shortTime } from './format.js';

const SHOWN = 30;

/**
 * The account's recent API requests (GET /sandbox/requests), WireMock's request journal for
 * this account: method, path, status and time, and for an error the answer the app got. The
 * page's own requests are not recorded, so this is what the partner's app sent.
 */
export class JournalPanel {
  constructor(private readonly ctx: Context) {
    byId('journal-errors-only').addEventListener('change', () => ctx.refresh('journal'));
  }

  async refresh(): Promise<void> {
    const { requests } = await this.ctx.api.get<{ requests: JournalEntry[] }>(`/sandbox/requests?limit=200`);
    const errorsOnly = byId<HTMLInputElement>('journal-errors-only').checked;
    const shown = requests.filter((r) => !errorsOnly || r.status >= 400).slice(0, SHOWN);
    const zone = this.ctx.zone;
    byId('journal-count').textContent = `(${shown.length} of ${requests.length})`;
    const list = byId('journal');
    // Open answers stay open when the list is drawn again.
    const open = new Set([...list.querySelectorAll<HTMLDetailsElement>('details[open]')].map((d) => d.dataset['key']));
    list.replaceChildren(
      ...(shown.length === 0
        ? [
            emptyState(
              errorsOnly
                ? 'No failed request among the recent ones.'
                : 'No requests yet. Call the API with this account\u2019s API key or an OAuth token (curl, your app): each call is listed here with its answer.',
            ),
          ]
        : shown.map((r) => {
            const query = new URLSearchParams(Object.entries(r.query).map(([k, v]) => [k, String(v)])).toString();
            const key = `${r.time} ${r.method} ${r.path}`;
            const line = el('span', { className: 'row-line' }, [
              badge(String(r.status), r.status >= 500 ? 'failed' : r.status >= 400 ? 'warn' : 'ok'),
              ' ',
              el('code', { className: 'wrap', text: `${r.method} ${r.path}${query ? `?${query}` : ''}` }),
            ]);
            const meta = el('span', {
              className: 'row-line detail',
              text: `${shortTime(r.time, zone)} · ${r.durationMs} ms · ${r.auth === 'api_key' ? 'API key' : 'access token'}`,
            });
            if (r.errorBody === null) return el('li', { className: 'row', 'data-status': r.status }, [line, meta]);
            const details = el('details', { 'data-key': key, open: open.has(key) }, [
              el('summary', { text: 'The answer' }),
              el('pre', { tabindex: 0, 'aria-label': 'Error answer' }, [prettyJson(r.errorBody)]),
            ]);
            return el('li', { className: 'row error', 'data-status': r.status }, [line, meta, details]);
          })),
    );
  }
}
