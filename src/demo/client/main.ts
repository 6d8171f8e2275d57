// First: it makes the browser's locale usable before uPlot (imported by chart.ts) reads it.
import '../../dashboard/client/locale.js';
import './style.css';

import { byId, el } from '../../dashboard/client/dom.js';
import { LiveConnection, type LiveState } from '../../dashboard/client/live.js';
import { DEMO_PATHS, type DemoMessage, type DemoPageConfig } from '../page-config.js';
import type { Card, Scene } from '../view-types.js';
import { PresenterControls } from './presenter.js';
import { SceneView } from './view.js';

/** While the stream is down, the page asks for the scene this often instead. */
const FALLBACK_POLL_MS = 5000;

/** The request a card stands for, as it was sent: its line, headers and JSON. */
function showRaw(card: Card): void {
  const dialog = byId<HTMLDialogElement>('raw-dialog', HTMLDialogElement);
  const headers = card.raw.headers.map((h) => `${h.name}: ${h.value}`).join('\n');
  byId('raw-request').textContent = `${card.raw.requestLine}\n${headers}\n\n${card.raw.body}`;
  dialog.showModal();
}

function start(): void {
  const root = byId('demo');
  const config = JSON.parse(root.dataset['config'] ?? '{}') as DemoPageConfig;
  const base = config.role === 'presenter' ? '/demo' : `${DEMO_PATHS.watch}${encodeURIComponent(config.token)}`;
  const view = new SceneView(showRaw);
  byId('close-raw').addEventListener('click', () => byId<HTMLDialogElement>('raw-dialog', HTMLDialogElement).close());
  let live: LiveConnection<DemoMessage> | null = null;
  let poll: ReturnType<typeof setInterval> | null = null;

  /** The view can go no further: the link ended, or the presenter signed out. */
  const ended = (title: string, text: string): void => {
    live?.stop();
    controls?.stop();
    if (poll !== null) clearInterval(poll);
    setLive('offline');
    if (document.querySelector('.ended')) return;
    const actions = config.role === 'presenter' ? [el('a', { href: '/demo', text: 'Sign in again' })] : [];
    document.body.append(
      el('div', { className: 'ended', role: 'alert' }, [
        el('div', {}, [el('h2', { text: title }), el('p', { text }), ...actions]),
      ]),
    );
  };
  const controls =
    config.role === 'presenter'
      ? new PresenterControls(config, () => ended('You are signed out', 'Sign in again to present.'))
      : null;

  const show = (scene: Scene): void => {
    view.show(scene);
    controls?.show(scene);
  };
  const reload = async (): Promise<void> => {
    const res = await fetch(`${base}/scene`, { cache: 'no-store', headers: { Accept: 'application/json' } });
    if (res.status === 404 || res.status === 401) {
      ended('This demo has ended', 'The link expired or the presenter ended it.');
      return;
    }
    if (res.ok) show((await res.json()) as Scene);
  };

  function setLive(state: LiveState): void {
    const indicator = byId('live');
    indicator.dataset['state'] = state;
    indicator.textContent = state === 'live' ? 'live' : state === 'connecting' ? 'connecting' : 'reconnecting';
    if (state === 'live' && poll !== null) {
      clearInterval(poll);
      poll = null;
    } else if (state === 'offline' && poll === null) {
      poll = setInterval(() => void reload().catch(() => undefined), FALLBACK_POLL_MS);
    }
  }

  show(JSON.parse(root.dataset['scene'] ?? 'null') as Scene);
  live = new LiveConnection<DemoMessage>({
    url: `${base}/events`,
    message: (message) => {
      if (message.type === 'scene') show(message.scene as Scene);
      else if (message.type === 'gone')
        ended(config.role === 'presenter' ? 'You are signed out' : 'This demo has ended', message.reason);
    },
    state: setLive,
    // A stream refused (a link ended, too many viewers): the scene says which.
    beforeRetry: () => reload(),
  });
  live.start();
}

start();
