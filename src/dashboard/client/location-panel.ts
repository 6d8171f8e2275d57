import type { AlertStarted, Location, Paged, SandboxAlert } from '../api-types.js';
import type { AlertTypeOption } from '../page-config.js';
import type { Context } from './context.js';
import { badge, byId, el, emptyState, onSubmit, replaceKeepingFocus } from './dom.js';
import { capitalize, clockTime, plural, shortTime } from './format.js';
import { busy, idWithCopy } from './widgets.js';

/**
 * The selected location: its zone and local time, devices, home/away, the alerts in force
 * (each with End), and the form that starts an alert of any type.
 */
export class LocationPanel {
  constructor(private readonly ctx: Context) {
    onSubmit('start-alert', (form) => this.#start(form));
    byId('alert-type').addEventListener('change', () => this.#showHint());
    byId('toggle-home-away').addEventListener(
      'click',
      (event) => void this.#toggleHomeAway(event.currentTarget as HTMLButtonElement),
    );
    byId('alerts').addEventListener('click', (event) => {
      const button = (event.target as Element).closest<HTMLButtonElement>('button[data-end-alert]');
      if (button) void this.#end(button, button.dataset['endAlert'] ?? '');
    });
    for (const tab of document.querySelectorAll<HTMLButtonElement>('[role="tab"][data-location-id]')) {
      tab.addEventListener('click', () => ctx.select(tab.dataset['locationId'] ?? ''));
      tab.addEventListener('keydown', (event) => this.#moveTab(event, tab));
    }
    ctx.onSelect(() => {
      this.renderHeader();
      this.#renderLocation();
      ctx.refresh('alerts');
    });
    this.renderHeader();
    this.#showHint();
    setInterval(() => this.#renderLocalTime(), 1000);
  }

  /** Arrow keys move between the location tabs (the ARIA tabs pattern). */
  #moveTab(event: KeyboardEvent, tab: HTMLButtonElement): void {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const tabs = [...document.querySelectorAll<HTMLButtonElement>('[role="tab"][data-location-id]')];
    const next = tabs[(tabs.indexOf(tab) + (event.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length];
    if (!next) return;
    next.focus();
    this.ctx.select(next.dataset['locationId'] ?? '');
  }

  renderHeader(): void {
    const selected = this.ctx.config.locations.find((l) => l.locationId === this.ctx.selected);
    if (!selected) return;
    for (const tab of document.querySelectorAll<HTMLButtonElement>('[role="tab"][data-location-id]')) {
      const on = tab.dataset['locationId'] === selected.locationId;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
    }
    byId('location-panel').dataset['locationId'] = selected.locationId;
    byId('location-name').textContent = selected.name;
    byId('location-id').replaceChildren(idWithCopy(selected.locationId, 'location id'));
    this.#renderLocalTime();
  }

  #renderLocalTime(): void {
    const nowMs = this.ctx.clock.nowMs();
    const zone = this.ctx.zone;
    byId('location-zone').textContent = nowMs === null ? zone : `${zone} · ${clockTime(nowMs, zone)}`;
  }

  async refreshLocations(): Promise<void> {
    const page = await this.ctx.api.get<Paged & { locations: Location[] }>('/v1/locations?perPage=100');
    this.ctx.locations.clear();
    for (const location of page.locations) this.ctx.locations.set(location.locationId, location);
    this.#renderLocation();
  }

  #renderLocation(): void {
    const location = this.ctx.locations.get(this.ctx.selected);
    if (!location) return;
    this.#showHint();
    const state = byId('home-away');
    state.textContent = location.homeAway;
    state.className = `badge ${location.homeAway}`;
    const toggle = byId<HTMLButtonElement>('toggle-home-away');
    toggle.textContent = location.homeAway === 'home' ? 'Set away' : 'Set home';
    toggle.disabled = false;
    byId('devices').replaceChildren(
      ...(location.devices.length === 0
        ? [emptyState('No devices at this location.')]
        : location.devices.map((d) =>
            el('li', { 'data-device-id': d.deviceId }, [
              badge(d.connected ? 'connected' : 'disconnected'),
              ` ${d.type} `,
              idWithCopy(d.deviceId, 'device id'),
              d.calibrated ? null : ' (not calibrated)',
            ]),
          )),
    );
  }

  async refreshAlerts(): Promise<void> {
    const locationId = this.ctx.selected;
    const page = await this.ctx.api.get<{ alerts: SandboxAlert[] }>(
      `/sandbox/locations/${encodeURIComponent(locationId)}/alerts?active=true&perPage=50`,
    );
    if (locationId !== this.ctx.selected) return;
    const zone = this.ctx.zone;
    const list = byId('alerts');
    list.dataset['count'] = String(page.alerts.length);
    replaceKeepingFocus(
      list,
      page.alerts.length === 0
        ? [emptyState('No alert in force. Start one below; every confirmed subscription of this location is notified.')]
        : page.alerts.map((a) => {
            const spec = this.ctx.alertTypes.get(a.type);
            const detail = `peak ${a.peakValue}${spec ? ` ${spec.unit}` : ''} · detected ${shortTime(a.detectedTime * 1000, zone)}${a.shown ? '' : ` · paused under the ${a.supersededBy ? 'high leak' : 'alert in force'}`}`;
            return el(
              'li',
              { className: a.shown ? 'alert' : 'alert paused', 'data-alert-id': a.alertId, 'data-alert-type': a.type },
              [
                badge(a.type, 'alert'),
                el('span', { className: 'detail', text: detail }),
                el('button', {
                  type: 'button',
                  className: 'danger small',
                  'data-end-alert': a.alertId,
                  'data-focus': `end-${a.alertId}`,
                  'aria-label': `End the ${a.type} alert`,
                  text: 'End',
                }),
              ],
            );
          }),
    );
  }

  /**
   * What the chosen type means at this location, in words: its peak's measure, unit and range,
   * and, when the home's mode does not fit the type, what the sandbox does then.
   */
  #showHint(): void {
    const type = byId<HTMLSelectElement>('alert-type').value;
    const spec = this.ctx.alertTypes.get(type);
    const input = byId<HTMLInputElement>('alert-peak');
    if (!spec) return;
    input.placeholder = String(spec.defaultPeakValue);
    input.min = String(spec.min);
    input.max = String(spec.max);
    byId('alert-peak-hint').textContent = `${capitalize(spec.meaning)}. ${peakInWords(spec)}`;
    const homeAway = this.ctx.locations.get(this.ctx.selected)?.homeAway;
    const note = byId('alert-mode-note');
    note.textContent =
      type === 'awayLeak' && homeAway === 'home'
        ? 'This home is set to home, and production raises awayLeak only while it is away. The sandbox sends it anyway, so a receiver can be tried with it (it must cope); Set away first to play it as production would.'
        : spec.leak && type !== 'awayLeak' && homeAway === 'away'
          ? `This home is set to away: as in production, a ${type} starts as awayLeak (any flow while away). Set home first for a ${type}.`
          : '';
  }

  async #start(form: HTMLFormElement): Promise<void> {
    const type = byId<HTMLSelectElement>('alert-type').value;
    const peakText = byId<HTMLInputElement>('alert-peak').value.trim();
    const body: { type: string; peakValue?: number } = { type };
    if (peakText !== '') body.peakValue = Number(peakText);
    const locationId = this.ctx.selected;
    try {
      const r = await busy(form.querySelector('button[type="submit"]'), () =>
        this.ctx.api.post<AlertStarted>(`/sandbox/locations/${encodeURIComponent(locationId)}/alerts`, body),
      );
      const spec = this.ctx.alertTypes.get(r.type);
      const what = `${r.type} (${r.peakValue}${spec ? ` ${spec.unit}` : ''})`;
      this.ctx.announce(
        r.outcome === 'ignored'
          ? `Ignored: ${r.note ?? 'an alert of this kind is already in force'}.`
          : `${r.outcome === 'escalated' ? 'Escalated to' : 'Started'} ${what} at ${this.ctx.locationName(locationId)}; ${plural(r.notifications, 'notification')} queued.`,
      );
      this.ctx.refresh('alerts', 'usage', 'locations', 'deliveries');
    } catch (error) {
      this.ctx.fail(error);
    }
  }

  async #end(button: HTMLButtonElement, alertId: string): Promise<void> {
    const locationId = this.ctx.selected;
    try {
      await busy(button, () =>
        this.ctx.api.post(
          `/sandbox/locations/${encodeURIComponent(locationId)}/alerts/${encodeURIComponent(alertId)}/end`,
        ),
      );
      this.ctx.announce('Alert ended; confirmed subscriptions get the end notification.');
      this.ctx.refresh('alerts', 'usage', 'locations', 'deliveries');
    } catch (error) {
      this.ctx.fail(error);
    }
  }

  async #toggleHomeAway(button: HTMLButtonElement): Promise<void> {
    const location = this.ctx.locations.get(this.ctx.selected);
    if (!location) return;
    const next = location.homeAway === 'home' ? 'away' : 'home';
    try {
      const updated = await busy(button, () =>
        this.ctx.api.request<Location>('PUT', `/v1/locations/${encodeURIComponent(location.locationId)}`, {
          homeAway: next,
        }),
      );
      this.ctx.locations.set(updated.locationId, updated);
      this.#renderLocation();
      this.ctx.announce(
        next === 'away' ? `${updated.name} is away: leaks now start as awayLeak.` : `${updated.name} is home.`,
      );
    } catch (error) {
      this.ctx.fail(error);
    }
  }
}

/** What the peak value measures, in words, by the unit of the alert type. */
const MEASURES: Record<string, { measure: string; unit: string }> = {
  gpm: { measure: 'flow', unit: 'gallons per minute' },
  '°F': { measure: 'temperature', unit: 'degrees Fahrenheit' },
  '%': { measure: 'relative humidity', unit: 'percent' },
};

/** "Peak flow in gallons per minute: more than 0.1, up to 15. Empty for 0.5." */
function peakInWords(spec: AlertTypeOption): string {
  const { measure, unit } = MEASURES[spec.unit] ?? { measure: 'value', unit: spec.unit };
  const range = spec.minExclusive ? `more than ${spec.min}, up to ${spec.max}` : `from ${spec.min} to ${spec.max}`;
  return `Peak ${measure} in ${unit}: ${range}. Empty for ${spec.defaultPeakValue}.`;
}
