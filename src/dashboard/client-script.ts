/**
 * The dashboard's one inline script, sent as is (no build step, no external assets). It reads
 * its configuration (the access token, the locations) from the escaped `data-config` attribute
 * and calls the public /v1 and /sandbox routes with that token. Data is only ever inserted with
 * textContent and DOM methods, never as markup. The text must not contain a backtick, a dollar
 * sign followed by a brace, or a closing script tag (a test checks it parses and stays inside its element).
 */
export const DASHBOARD_SCRIPT = String.raw`
(() => {
  'use strict';
  const POLL_MS = 2000;
  const STORAGE_KEY = 'water-sandbox-dashboard';
  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const AUTH_REFUSALS = ['invalid_credentials', 'token_expired', 'token_revoked'];
  const SVG_NS = 'http://www.w3.org/2000/svg';

  const root = document.getElementById('dashboard');
  const config = JSON.parse(root.dataset.config);
  const alertTypes = {};
  for (const t of config.alertTypes) alertTypes[t.type] = t;

  const saved = loadSaved();
  const chartModes = saved.chartModes || {};
  let tokenReloaded = saved.tokenReload === true;
  let stopped = false;
  let tick = 0;
  let accountDirty = true;
  let usageDirty = true;
  let restoredScroll = false;
  let clock = null;
  let clockBaseMs = 0;
  let clockFetchedAt = 0;

  const entries = [];
  for (const card of root.querySelectorAll('[data-location-id]')) {
    const location = config.locations.find((l) => l.locationId === card.dataset.locationId);
    if (!location) continue;
    entries.push({
      locationId: location.locationId,
      name: location.name,
      timeZone: location.timeZone,
      card: card,
      homeAway: null,
      chartSeq: 0,
      chartData: null,
      local: localFormatter(location.timeZone, { weekday: 'short', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }),
      localShort: localFormatter(location.timeZone, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }),
    });
  }
  const byId = {};
  for (const entry of entries) byId[entry.locationId] = entry;

  // ---- small helpers ------------------------------------------------------------------

  function loadSaved() {
    try {
      return JSON.parse(sessionStorage.getItem(STORAGE_KEY) || '{}') || {};
    } catch (e) {
      return {};
    }
  }

  function save(extra) {
    try {
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify(Object.assign({ chartModes: chartModes }, extra || {})));
    } catch (e) {
      // storage disabled: the page still works, it only forgets the chart ranges
    }
  }

  function localFormatter(timeZone, options) {
    try {
      return new Intl.DateTimeFormat('en-US', Object.assign({ timeZone: timeZone, hourCycle: 'h23' }, options));
    } catch (e) {
      return new Intl.DateTimeFormat('en-US', Object.assign({ timeZone: 'UTC', hourCycle: 'h23' }, options));
    }
  }

  const browserClock = new Intl.DateTimeFormat('en-US', {
    weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'short',
  });
  const browserShort = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

  function el(tag, props, children) {
    const node = document.createElement(tag);
    for (const key of Object.keys(props || {})) {
      const value = props[key];
      if (value === undefined || value === null || value === false) continue;
      if (key === 'text') node.textContent = String(value);
      else if (key === 'className') node.className = value;
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children || []) if (child !== null && child !== undefined && child !== '') node.append(child);
    return node;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const key of Object.keys(attrs)) node.setAttribute(key, String(attrs[key]));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function field(entry, name) {
    return entry.card.querySelector('[data-field="' + name + '"]');
  }

  // Re-renders only when the data changed, so buttons are not replaced under the pointer.
  function renderIfChanged(node, data, render) {
    const signature = JSON.stringify(data);
    if (node.__signature === signature) return;
    node.__signature = signature;
    render();
  }

  function badge(text, kind) {
    return el('span', { className: 'badge ' + (kind || text), text: text });
  }

  function plural(n, word) {
    return n + ' ' + word + (n === 1 ? '' : 's');
  }

  function gallons(value) {
    return value.toLocaleString('en-US', { maximumFractionDigits: 1 }) + ' gal';
  }

  function shortId(id) {
    return id.length > 8 ? id.slice(0, 8) + '…' : id;
  }

  function browserTime(iso) {
    return iso ? browserShort.format(new Date(iso)) : '–';
  }

  function durationText(totalSeconds) {
    let s = Math.abs(Math.round(totalSeconds));
    const d = Math.floor(s / 86400); s -= d * 86400;
    const h = Math.floor(s / 3600); s -= h * 3600;
    const m = Math.floor(s / 60); s -= m * 60;
    const parts = [];
    if (d) parts.push(d + ' d');
    if (h) parts.push(h + ' h');
    if (m) parts.push(m + ' min');
    if (s && !d) parts.push(s + ' s');
    return parts.join(' ') || '0 s';
  }

  function locationPath(entry) {
    return '/locations/' + encodeURIComponent(entry.locationId);
  }

  // ---- status line and messages -------------------------------------------------------

  function showFlash(text, bad) {
    const flash = document.getElementById('flash');
    flash.replaceChildren(el('div', { className: bad ? 'error' : 'flash', text: text }));
  }

  function setLive(ok, text) {
    const live = document.getElementById('live');
    live.classList.toggle('offline', !ok);
    live.textContent = ok ? 'live' : 'not updating: ' + text;
    live.title = ok ? 'refreshed every ' + POLL_MS / 1000 + ' s' : text;
  }

  function message(entry, name, text, bad) {
    const node = field(entry, name);
    node.textContent = text;
    node.classList.toggle('bad', !!bad);
  }

  class ApiError extends Error {
    constructor(status, text) {
      super(text);
      this.status = status;
    }
  }
  class Stopped extends Error {}

  function report(error, entry, name) {
    if (error instanceof Stopped) return;
    const text = error.status ? error.message + ' (HTTP ' + error.status + ')' : error.message;
    if (entry) message(entry, name, text, true);
    else showFlash(text, true);
  }

  // The token expires on the account clock; a reload gets a fresh one from the server.
  // A second refusal right after a reload stops the page instead of reloading in a loop.
  function renewToken(reason, flash) {
    if (stopped) return;
    stopped = true;
    if (tokenReloaded) {
      setLive(false, 'access token refused');
      showFlash('The sandbox refused this page\u2019s access token (' + reason + '). Reload the page, or sign out and in again.', true);
      return;
    }
    save({ tokenReload: true, scrollY: window.scrollY, flash: flash || '' });
    window.location.reload();
  }

  async function api(method, path, body) {
    if (stopped) throw new Stopped('stopped');
    const headers = { Authorization: 'Bearer ' + config.accessToken, Accept: 'application/json' };
    const init = { method: method, headers: headers, cache: 'no-store' };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(path, init);
    } catch (e) {
      throw new ApiError(0, 'the sandbox did not answer ' + method + ' ' + path.split('?')[0]);
    }
    const text = await res.text();
    let data = null;
    try {
      data = text === '' ? null : JSON.parse(text);
    } catch (e) {
      data = null;
    }
    if (res.status === 403 && data && AUTH_REFUSALS.indexOf(data.error) >= 0) {
      renewToken(data.message || data.error);
      throw new Stopped('token refused');
    }
    if (!res.ok) throw new ApiError(res.status, (data && data.message) || method + ' ' + path.split('?')[0] + ' failed');
    if (tokenReloaded) {
      tokenReloaded = false;
      save({});
    }
    return data;
  }

  // ---- the clock ------------------------------------------------------------------------

  function accountNowMs() {
    if (!clock) return null;
    return clock.frozen ? clockBaseMs : clockBaseMs + (performance.now() - clockFetchedAt);
  }

  function setClock(state) {
    const before = accountNowMs();
    clock = state;
    clockBaseMs = Date.parse(state.now);
    clockFetchedAt = performance.now();
    // Someone moved the clock, or a new hour began: the readings changed.
    if (before !== null && (Math.abs(clockBaseMs - before) > 5000 || Math.floor(clockBaseMs / 3600000) !== Math.floor(before / 3600000))) usageDirty = true;
    renderClock();
  }

  function renderClock() {
    const nowMs = accountNowMs();
    if (nowMs === null) return;
    const now = new Date(nowMs);
    const clockNow = document.getElementById('clock-now');
    clockNow.textContent = browserClock.format(now);
    clockNow.dataset.now = clock.now;
    clockNow.dataset.frozen = String(clock.frozen);
    const offset = clock.offsetSeconds === 0 ? 'at real time' : durationText(clock.offsetSeconds) + (clock.offsetSeconds > 0 ? ' ahead of' : ' behind') + ' real time';
    const meta = document.getElementById('clock-meta');
    renderIfChanged(meta, [clock.frozen, offset, clock.now], () => {
      meta.replaceChildren(badge(clock.frozen ? 'frozen' : 'running'), ' ' + offset + ' · account clock ', el('code', { text: clock.now }));
    });
    document.getElementById('freeze').textContent = clock.frozen ? 'Unfreeze' : 'Freeze';
    for (const entry of entries) field(entry, 'local-time').textContent = entry.local.format(now);
  }

  async function loadClock() {
    setClock(await api('GET', '/sandbox/clock'));
  }

  async function changeClock(body, done) {
    const buttons = document.querySelectorAll('.clock-buttons button');
    for (const b of buttons) b.disabled = true;
    try {
      const state = await api('POST', '/sandbox/clock', body);
      setClock(state);
      accountDirty = true;
      usageDirty = true;
      showFlash(done);
      if (Date.parse(state.now) >= Date.parse(config.tokenExpiresAt)) {
        renewToken('it expired on the moved clock', done + ' (The page reloaded: its access token had expired on the moved clock.)');
        return;
      }
      await refreshNow();
    } catch (e) {
      report(e);
    } finally {
      if (!stopped) for (const b of buttons) b.disabled = false;
    }
  }

  // ---- locations ------------------------------------------------------------------------

  async function loadLocations() {
    const page = await api('GET', '/v1/locations?perPage=100');
    for (const location of page.locations) if (byId[location.locationId]) renderLocation(byId[location.locationId], location);
  }

  function renderLocation(entry, location) {
    entry.homeAway = location.homeAway;
    const state = field(entry, 'home-away');
    state.textContent = location.homeAway;
    state.className = 'badge ' + location.homeAway;
    const toggle = entry.card.querySelector('[data-action="toggle-home-away"]');
    toggle.textContent = location.homeAway === 'home' ? 'Set away' : 'Set home';
    toggle.disabled = false;
    const devices = field(entry, 'devices');
    renderIfChanged(devices, location.devices, () => {
      devices.replaceChildren(...location.devices.map((d) => el('li', { 'data-device-id': d.deviceId }, [
        badge(d.connected ? 'connected' : 'disconnected'),
        ' ' + d.type + ' ',
        el('code', { text: shortId(d.deviceId), title: d.deviceId }),
        d.calibrated ? '' : ' (not calibrated)',
      ])));
      if (location.devices.length === 0) devices.replaceChildren(el('li', { className: 'none', text: 'No devices.' }));
    });
  }

  async function toggleHomeAway(entry, button) {
    button.disabled = true;
    try {
      const next = entry.homeAway === 'home' ? 'away' : 'home';
      renderLocation(entry, await api('PUT', '/v1' + locationPath(entry), { homeAway: next }));
      message(entry, 'alert-message', next === 'away' ? 'Away mode: leaks now start as awayLeak.' : 'Home mode.');
    } catch (e) {
      report(e, entry, 'alert-message');
      button.disabled = false;
    }
  }

  // ---- alerts ---------------------------------------------------------------------------

  async function loadAlerts(entry) {
    const page = await api('GET', '/sandbox' + locationPath(entry) + '/alerts?active=true&perPage=20');
    const list = field(entry, 'alerts');
    renderIfChanged(list, page.alerts, () => {
      if (page.alerts.length === 0) {
        list.replaceChildren(el('li', { className: 'none', text: 'No active alerts.' }));
        return;
      }
      list.replaceChildren(...page.alerts.map((a) => {
        const spec = alertTypes[a.type];
        const detail = 'peak ' + a.peakValue + (spec ? ' ' + spec.unit : '') + ' · detected ' + entry.localShort.format(new Date(a.detectedTime * 1000)) +
          (a.shown ? '' : ' · paused under the ' + (a.supersededBy ? 'high leak' : 'alert in force'));
        return el('li', { className: a.shown ? '' : 'hidden-alert', 'data-alert-id': a.alertId, 'data-alert-type': a.type }, [
          badge(a.type, 'alert'),
          el('span', { text: detail }),
          el('button', { type: 'button', className: 'danger', 'data-action': 'end-alert', 'data-alert-id': a.alertId, text: 'End' }),
        ]);
      }));
    });
  }

  async function startAlert(entry, form) {
    const button = form.querySelector('button[type="submit"]');
    const type = form.elements.type.value;
    const peakText = form.elements.peakValue.value.trim();
    const body = { type: type };
    if (peakText !== '') body.peakValue = Number(peakText);
    button.disabled = true;
    try {
      const r = await api('POST', '/sandbox' + locationPath(entry) + '/alerts', body);
      const spec = alertTypes[r.type];
      const what = r.type + ' (' + r.peakValue + (spec ? ' ' + spec.unit : '') + ')';
      let text;
      if (r.outcome === 'ignored') text = 'Ignored: ' + r.note + '.';
      else text = (r.outcome === 'escalated' ? 'Escalated to ' : 'Started ') + what + '; ' + plural(r.notifications, 'notification') + ' queued.' + (r.outcome === 'started' && r.note ? ' ' + r.note + '.' : '');
      message(entry, 'alert-message', text);
      usageDirty = true;
      accountDirty = true;
      await Promise.all([loadAlerts(entry), loadDeliveries()]);
    } catch (e) {
      report(e, entry, 'alert-message');
    } finally {
      button.disabled = false;
    }
  }

  async function endAlert(entry, alertId, button) {
    button.disabled = true;
    try {
      const r = await api('POST', '/sandbox' + locationPath(entry) + '/alerts/' + encodeURIComponent(alertId) + '/end');
      message(entry, 'alert-message', 'Ended ' + r.type + '; ' + plural(r.notifications, 'notification') + ' queued.' + (r.resumed ? ' The ' + r.resumed.type + ' resumed.' : ''));
      usageDirty = true;
      accountDirty = true;
      await Promise.all([loadAlerts(entry), loadDeliveries()]);
    } catch (e) {
      report(e, entry, 'alert-message');
      button.disabled = false;
    }
  }

  function showPeakHint(form) {
    const spec = alertTypes[form.elements.type.value];
    if (!spec) return;
    const range = (spec.minExclusive ? 'above ' : '') + spec.min + ' to ' + spec.max + ' ' + spec.unit;
    form.elements.peakValue.placeholder = spec.defaultPeakValue + ' ' + spec.unit;
    form.querySelector('[data-field="peak-hint"]').textContent = 'optional: ' + range + ', default ' + spec.defaultPeakValue;
  }

  // ---- scenarios ------------------------------------------------------------------------

  async function runScenario(entry, form) {
    const button = form.querySelector('button[type="submit"]');
    const name = form.elements.scenario.value;
    button.disabled = true;
    try {
      const run = await api('POST', '/sandbox/scenarios/' + encodeURIComponent(name) + '/runs', { locationId: entry.locationId });
      message(entry, 'run-message', 'Started ' + run.scenario + ': ' + plural(run.steps, 'step') + (clock && clock.frozen ? '; the clock is frozen, so later steps play when you move it.' : '.'));
      usageDirty = true;
      accountDirty = true;
      await Promise.all([loadRuns(), loadAlerts(entry), loadDeliveries()]);
    } catch (e) {
      report(e, entry, 'run-message');
    } finally {
      button.disabled = false;
    }
  }

  async function loadRuns() {
    const { runs } = await api('GET', '/sandbox/runs');
    for (const entry of entries) {
      const mine = runs.filter((r) => r.locationId === entry.locationId).slice(0, 3);
      const list = field(entry, 'runs');
      renderIfChanged(list, mine, () => {
        list.replaceChildren(...mine.map((run) => {
          const last = run.log[run.log.length - 1];
          return el('li', { 'data-run-id': run.runId, 'data-state': run.state }, [
            badge(run.state),
            ' ',
            el('strong', { text: run.scenario }),
            ' ',
            el('progress', { max: run.steps, value: run.nextStep }),
            ' step ' + run.nextStep + ' of ' + run.steps,
            run.nextStepAt ? ' · next at ' + entry.localShort.format(new Date(run.nextStepAt)) : '',
            last ? el('div', { className: 'result', text: (last.ok ? '' : 'failed: ') + last.result }) : '',
          ]);
        }));
      });
    }
  }

  // ---- subscriptions and deliveries -----------------------------------------------------

  function locationName(locationId) {
    return byId[locationId] ? byId[locationId].name : locationId || '–';
  }

  async function loadSubscriptions() {
    const page = await api('GET', '/v1/subscriptions?perPage=100');
    document.getElementById('subscriptions-count').textContent = page.total > page.subscriptions.length ? '(first ' + page.subscriptions.length + ' of ' + page.total + ')' : '(' + page.total + ')';
    const body = document.getElementById('subscriptions-body');
    renderIfChanged(body, page.subscriptions, () => {
      if (page.subscriptions.length === 0) {
        body.replaceChildren(el('tr', {}, [el('td', { colspan: 4, className: 'none', text: 'No subscriptions yet: POST /v1/locations/{locationId}/subscriptions with {"endpoint": "..."}.' })]));
        return;
      }
      body.replaceChildren(...page.subscriptions.map((s) => el('tr', { 'data-subscription-id': s.subscriptionId, 'data-status': s.status }, [
        el('td', { text: locationName(s.locationId) }),
        el('td', {}, [el('code', { text: s.endpoint })]),
        el('td', {}, [badge(s.status)]),
        el('td', {}, [el('code', { className: 'detail', text: s.subscriptionId })]),
      ])));
    });
  }

  function deliveryKind(d) {
    if (d.kind === 'alert' && d.payload && typeof d.payload === 'object') return 'alert · ' + d.payload.type + (d.payload.active ? ' start' : ' end');
    return d.kind === 'receiver_check' ? 'receiver check' : d.kind;
  }

  function lastAnswer(d) {
    const last = d.attempts[d.attempts.length - 1];
    const notes = [];
    if (d.note) notes.push(d.note);
    if (!last) return [el('span', { text: 'not sent yet' }), ...notes.map((n) => el('div', { className: 'detail', text: n }))];
    if (last.error) notes.unshift(last.error);
    for (const w of last.warnings) notes.push(w);
    return [
      el('span', { text: (last.statusCode === null ? 'no answer' : String(last.statusCode)) + ' · ' + last.latencyMs + ' ms' }),
      ...notes.map((n) => el('div', { className: 'detail', text: n })),
    ];
  }

  async function loadDeliveries() {
    const page = await api('GET', '/sandbox/deliveries?perPage=25');
    document.getElementById('deliveries-count').textContent = page.total > page.deliveries.length ? '(latest ' + page.deliveries.length + ' of ' + page.total + ')' : '(' + page.total + ')';
    const body = document.getElementById('deliveries-body');
    renderIfChanged(body, page.deliveries, () => {
      if (page.deliveries.length === 0) {
        body.replaceChildren(el('tr', {}, [el('td', { colspan: 6, className: 'none', text: 'No webhooks sent yet.' })]));
        return;
      }
      body.replaceChildren(...page.deliveries.map((d) => {
        const last = d.attempts[d.attempts.length - 1];
        return el('tr', { 'data-delivery-id': d.deliveryId, 'data-kind': d.kind, 'data-state': d.state }, [
          el('td', { className: 'num', text: browserTime(last ? last.at : d.createdAt) }),
          el('td', {}, [el('span', { text: deliveryKind(d) }), d.locationId ? el('div', { className: 'detail', text: locationName(d.locationId) }) : '']),
          el('td', {}, [el('code', { text: d.method + ' ' + d.target })]),
          el('td', {}, [badge(d.state), d.state === 'pending' && d.nextAttemptAt ? el('div', { className: 'detail', text: 'next ' + browserTime(d.nextAttemptAt) }) : '']),
          el('td', { className: 'num', text: String(d.attempts.length) }),
          el('td', {}, lastAnswer(d)),
        ]);
      }));
    });
  }

  // ---- usage: summary and chart ---------------------------------------------------------

  async function loadSummary(entry) {
    const s = await api('GET', '/v1' + locationPath(entry) + '/readings/water-usage/summary');
    field(entry, 'today').textContent = gallons(s.today);
    field(entry, 'this-month').textContent = gallons(s.thisMonth);
    field(entry, 'this-year').textContent = gallons(s.thisYear);
  }

  // Buckets start where startTime falls, so the first one is partial: ask for one more and drop it.
  async function loadChart(entry) {
    const nowMs = accountNowMs();
    if (nowMs === null) return;
    const mode = chartModes[entry.locationId] === 'daily' ? 'daily' : 'hourly';
    const seq = ++entry.chartSeq;
    const nowSeconds = Math.floor(nowMs / 1000);
    const path = '/v1' + locationPath(entry) + '/readings/water-usage';
    let readings;
    if (mode === 'hourly') {
      const query = path + '?startTime=' + (nowSeconds - 168 * 3600) + '&groupBy=hour&perPage=100';
      const first = await api('GET', query + '&page=1');
      readings = first.readings;
      for (let page = 2; page <= first.pageCount; page++) readings = readings.concat((await api('GET', query + '&page=' + page)).readings);
      readings = readings.slice(-168);
    } else {
      const first = await api('GET', path + '?startTime=' + (nowSeconds - 30 * 86400) + '&groupBy=day&perPage=100');
      readings = first.readings.slice(-30);
    }
    if (seq !== entry.chartSeq) return;
    entry.chartData = { readings: readings, mode: mode };
    drawChart(entry, readings, mode);
  }

  let resizeTimer = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      for (const entry of entries) if (entry.chartData) drawChart(entry, entry.chartData.readings, entry.chartData.mode);
    }, 150);
  });

  async function refreshUsage(entry) {
    await Promise.all([loadSummary(entry), loadChart(entry)]);
  }

  // "2026-03-10T11:00:00-04:00": the location's local calendar, read from the reading's own text.
  function localParts(time) {
    const year = Number(time.slice(0, 4));
    const month = Number(time.slice(5, 7));
    const day = Number(time.slice(8, 10));
    return { date: time.slice(0, 10), month: month, day: day, hour: time.slice(11, 16), weekday: new Date(Date.UTC(year, month - 1, day)).getUTCDay() };
  }

  function niceStep(raw) {
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const f = raw / power;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * power;
  }

  function axisNumber(v) {
    return v >= 1000 ? (v / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 }) + 'k' : v.toLocaleString('en-US', { maximumFractionDigits: 2 });
  }

  function drawChart(entry, readings, mode) {
    const chart = field(entry, 'chart');
    // Drawn at the element's own width, so text keeps its size on any screen.
    const W = Math.max(320, Math.round(chart.getBoundingClientRect().width) || 720);
    const H = 230, left = 50, right = 10, top = 22, bottom = 28;
    chart.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    const plotW = W - left - right, plotH = H - top - bottom;
    const nodes = [];
    chart.dataset.mode = mode;
    chart.dataset.buckets = String(readings.length);
    for (const button of entry.card.querySelectorAll('[data-chart]')) button.setAttribute('aria-pressed', String(button.dataset.chart === mode));
    if (readings.length === 0) {
      chart.replaceChildren(svg('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle', class: 'empty' }, 'No readings in this period (the monitor was installed later).'));
      return;
    }
    const max = Math.max(...readings.map((r) => r.volume));
    const step = niceStep(max > 0 ? max / 4 : 1);
    const maxY = Math.max(step, Math.ceil(max / step) * step);
    const y = (v) => top + plotH - (v / maxY) * plotH;
    for (let v = 0; v <= maxY + step / 1000; v += step) {
      nodes.push(svg('line', { class: 'grid', x1: left, x2: W - right, y1: y(v), y2: y(v) }));
      nodes.push(svg('text', { x: left - 6, y: y(v) + 4, 'text-anchor': 'end' }, axisNumber(v)));
    }
    nodes.push(svg('text', { x: left, y: 12, class: 'title' }, mode === 'hourly' ? 'gallons per hour, last 7 days (location time)' : 'gallons per day, last 30 days (location time)'));
    const slot = plotW / readings.length;
    const gap = slot > 8 ? slot * 0.2 : slot * 0.1;
    const days = [];
    // Centred under its point, but kept inside the chart (about 6.5 px per character at 12 px).
    const axisLabel = (x, text) => {
      const half = text.length * 3.3;
      return svg('text', { x: Math.min(Math.max(x, left + half), W - right - half), y: H - bottom + 18, 'text-anchor': 'middle' }, text);
    };
    readings.forEach((r, i) => {
      const parts = localParts(r.time);
      const h = Math.max(0, y(0) - y(r.volume));
      const bar = svg('rect', { class: 'bar', x: (left + i * slot + gap / 2).toFixed(2), y: (y(0) - h).toFixed(2), width: Math.max(slot - gap, 0.5).toFixed(2), height: h.toFixed(2) });
      const when = WEEKDAYS[parts.weekday] + ' ' + MONTHS[parts.month - 1] + ' ' + parts.day + (mode === 'hourly' ? ', ' + parts.hour : '');
      bar.append(svg('title', {}, when + ': ' + gallons(r.volume)));
      nodes.push(bar);
      if (mode === 'hourly') {
        const last = days[days.length - 1];
        if (last && last.date === parts.date) last.end = i;
        else days.push({ date: parts.date, start: i, end: i, label: WEEKDAYS[parts.weekday] + ' ' + MONTHS[parts.month - 1] + ' ' + parts.day, short: WEEKDAYS[parts.weekday] + ' ' + parts.day });
      } else if ((readings.length - 1 - i) % 5 === 0) {
        const x = left + (i + 0.5) * slot;
        nodes.push(svg('line', { class: 'axis', x1: x, x2: x, y1: y(0), y2: y(0) + 4 }));
        nodes.push(axisLabel(x, MONTHS[parts.month - 1] + ' ' + parts.day));
      }
    });
    // Hourly: a tick at each local midnight, the day's name centred under its hours.
    for (const day of days) {
      if (day.start > 0) {
        const x = left + day.start * slot;
        nodes.push(svg('line', { class: 'axis', x1: x, x2: x, y1: top, y2: y(0) + 6 }));
      }
      const label = 24 * slot >= 80 ? day.label : day.short;
      if ((day.end - day.start + 1) * slot >= label.length * 6.5 + 6) nodes.push(axisLabel(left + ((day.start + day.end + 1) / 2) * slot, label));
    }
    nodes.push(svg('line', { class: 'axis', x1: left, x2: W - right, y1: y(0), y2: y(0) }));
    chart.replaceChildren(...nodes);
  }

  // ---- refreshing -----------------------------------------------------------------------

  async function refreshNow() {
    await Promise.all([loadClock(), loadDeliveries(), loadRuns(), ...entries.map(loadAlerts)]);
    if (accountDirty || tick % 3 === 0) {
      accountDirty = false;
      await Promise.all([loadLocations(), loadSubscriptions()]);
    }
    if (usageDirty || tick % 30 === 0) {
      usageDirty = false;
      await Promise.all(entries.map(refreshUsage));
    }
  }

  // Polls only while the tab is visible: the page's calls are the account's requests too
  // (journal, /v1 faults and rate limit), so a forgotten background tab should stay quiet.
  let polling = false;
  let pollTimer = null;
  async function poll() {
    pollTimer = null;
    if (stopped || polling) return;
    if (document.hidden) {
      setLive(false, 'paused while this tab is hidden');
      return;
    }
    polling = true;
    tick++;
    try {
      await refreshNow();
      setLive(true);
      if (!restoredScroll) {
        restoredScroll = true;
        if (saved.scrollY) window.scrollTo(0, saved.scrollY);
      }
    } catch (e) {
      if (!(e instanceof Stopped)) setLive(false, e.message);
    } finally {
      polling = false;
    }
    if (!stopped && !document.hidden) pollTimer = setTimeout(poll, POLL_MS);
  }

  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && pollTimer === null) poll();
  });

  // ---- wiring ---------------------------------------------------------------------------

  function entryOf(node) {
    const card = node.closest('[data-location-id]');
    return card ? byId[card.dataset.locationId] : undefined;
  }

  root.addEventListener('click', (event) => {
    const button = event.target.closest('button');
    if (!button || button.type === 'submit') return;
    if (button.dataset.advance) {
      const seconds = Number(button.dataset.advance);
      const words = { 3600: '1 hour', 86400: '1 day', 604800: '7 days' };
      changeClock({ advanceSeconds: seconds }, 'Clock moved forward ' + (words[seconds] || seconds + ' s') + '.');
      return;
    }
    if (button.id === 'freeze' && clock) {
      changeClock({ frozen: !clock.frozen }, clock.frozen ? 'Clock running again.' : 'Clock frozen.');
      return;
    }
    const entry = entryOf(button);
    if (!entry) return;
    if (button.dataset.action === 'end-alert') endAlert(entry, button.dataset.alertId, button);
    else if (button.dataset.action === 'toggle-home-away') toggleHomeAway(entry, button);
    else if (button.dataset.chart) {
      chartModes[entry.locationId] = button.dataset.chart;
      save({});
      loadChart(entry).catch((e) => report(e, entry, 'alert-message'));
    }
  });

  root.addEventListener('submit', (event) => {
    const form = event.target;
    const entry = entryOf(form);
    if (!entry) return;
    event.preventDefault();
    if (form.dataset.action === 'start-alert') startAlert(entry, form);
    else if (form.dataset.action === 'run-scenario') runScenario(entry, form);
  });

  root.addEventListener('change', (event) => {
    const form = event.target.form;
    if (!form) return;
    if (event.target.name === 'type') showPeakHint(form);
    if (event.target.name === 'scenario') {
      const option = event.target.selectedOptions[0];
      form.querySelector('[data-field="scenario-description"]').textContent = option ? option.title : '';
    }
  });

  for (const entry of entries) {
    const mode = chartModes[entry.locationId] === 'daily' ? 'daily' : 'hourly';
    for (const button of entry.card.querySelectorAll('[data-chart]')) button.setAttribute('aria-pressed', String(button.dataset.chart === mode));
    showPeakHint(entry.card.querySelector('form[data-action="start-alert"]'));
  }
  if (saved.flash) showFlash(saved.flash);
  save({ tokenReload: tokenReloaded });
  setInterval(renderClock, 1000);
  poll();
})();
`;
