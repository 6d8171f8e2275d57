import type { ClockState } from '../api-types.js';
import type { Context } from './context.js';
import { badge, byId } from './dom.js';
import { duration, fullTime } from './format.js';
import { busy, confirmAction } from './widgets.js';

const PRESET_WORDS: Record<string, string> = { '3600': '1 hour', '86400': '1 day', '604800': '7 days' };

/**
 * The virtual clock bar: the account's now in the selected location's zone, how far it is
 * from real time, and the presenter's controls (advance, freeze, back to real time, reset).
 */
export class ClockPanel {
  constructor(private readonly ctx: Context) {
    byId('clock').addEventListener('click', (event) => {
      const button = (event.target as Element).closest('button');
      if (!button) return;
      const advance = button.dataset['advance'];
      if (advance !== undefined)
        void this.#change(
          button,
          { advanceSeconds: Number(advance) },
          `Clock moved forward ${PRESET_WORDS[advance] ?? `${advance} s`}.`,
        );
      else if (button.id === 'freeze') {
        const frozen = ctx.clock.state?.frozen ?? false;
        void this.#change(button, { frozen: !frozen }, frozen ? 'Clock running again.' : 'Clock frozen.');
      } else if (button.id === 'real-time') void this.#change(button, { realTime: true }, 'Clock back to real time.');
      else if (button.id === 'reset') void this.#reset(button);
    });
    setInterval(() => this.render(), 1000);
  }

  async refresh(): Promise<void> {
    this.show(await this.ctx.api.get<ClockState>('/sandbox/clock'));
  }

  /** A state from the API or from a live `clock` message. */
  show(state: ClockState): void {
    const before = this.ctx.clock.nowMs();
    this.ctx.clock.set(state);
    this.render();
    const after = Date.parse(state.now);
    // Moved (not merely ticking): readings, runs and due work changed.
    if (before !== null && Math.abs(after - before) > 5000) this.ctx.refresh('usage', 'alerts', 'runs', 'deliveries');
  }

  render(): void {
    const state = this.ctx.clock.state;
    const nowMs = this.ctx.clock.nowMs();
    if (!state || nowMs === null) return;
    const zone = this.ctx.zone;
    const now = byId('clock-now');
    now.textContent = fullTime(nowMs, zone);
    now.dataset['now'] = state.now;
    now.dataset['frozen'] = String(state.frozen);
    const offset =
      state.offsetSeconds === 0
        ? 'at real time'
        : `${duration(state.offsetSeconds)} ${state.offsetSeconds > 0 ? 'ahead of' : 'behind'} real time`;
    const meta = byId('clock-meta');
    const signature = `${String(state.frozen)} ${offset} ${zone}`;
    if (meta.dataset['signature'] !== signature) {
      meta.dataset['signature'] = signature;
      meta.replaceChildren(badge(state.frozen ? 'frozen' : 'running'), ` ${offset} · times in ${zone}`);
    }
    byId('freeze').textContent = state.frozen ? 'Unfreeze' : 'Freeze';
    byId<HTMLButtonElement>('real-time').disabled = state.offsetSeconds === 0 && !state.frozen;
  }

  async #change(button: HTMLButtonElement, body: Record<string, unknown>, done: string): Promise<void> {
    try {
      await busy(button, async () => this.show(await this.ctx.api.post<ClockState>('/sandbox/clock', body)));
      this.ctx.announce(done);
    } catch (error) {
      this.ctx.fail(error);
    }
    this.render();
  }

  async #reset(button: HTMLButtonElement): Promise<void> {
    const sure = await confirmAction(
      'Reset the account?',
      'Subscriptions, alerts, deliveries, scenario runs, the request journal, faults and the clock go back to how the account started. API keys and users stay.',
      'Reset account',
    );
    if (!sure) return;
    try {
      await busy(button, () => this.ctx.api.post('/sandbox/reset'));
      this.ctx.announce('Account reset: back to its initial state.');
      this.ctx.refresh('clock', 'locations', 'alerts', 'usage', 'runs', 'subscriptions', 'deliveries', 'journal');
    } catch (error) {
      this.ctx.fail(error);
    }
  }
}
