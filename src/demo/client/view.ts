import { byId, el } from '../../dashboard/client/dom.js';
import { clockTime, dayAndTime, spokenDuration } from '../page-config.js';
import type { Card, PhoneNotification, Scene } from '../view-types.js';
import { UsageChart } from './chart.js';

/**
 * The account's clock as the page shows it: the scene's instant, moved on at the scene's rate
 * (a playing story's speed, 1 for a running clock, 0 when frozen) by the browser's monotonic
 * clock, never past the story's next step or its end (the server stops there).
 */
export class SceneClock {
  #ms = 0;
  #rate = 0;
  #at = 0;
  #limitMs = Number.POSITIVE_INFINITY;

  set(scene: Scene): void {
    this.#ms = scene.now.ms;
    this.#rate = scene.now.rate;
    this.#at = performance.now();
    const story = scene.story;
    const next = story?.steps.find((s) => !s.done)?.atMs;
    this.#limitMs = story ? Math.min(next ?? story.endMs, story.endMs) : Number.POSITIVE_INFINITY;
  }

  nowMs(): number {
    const moved = this.#ms + (performance.now() - this.#at) * this.#rate;
    return this.#rate === 0 ? this.#ms : Math.max(this.#ms, Math.min(moved, this.#limitMs));
  }
}

/** Draws a scene: the header, the story, the home, the partner's side and the phone. */
export class SceneView {
  readonly clock = new SceneClock();
  readonly #chart = new UsageChart(byId('chart'));
  readonly #cardKeys = new Set<string>();
  readonly #noteKeys = new Set<string>();
  #scene: Scene | null = null;
  #drawn = false;
  #caption = '';

  constructor(private readonly onRawRequest: (card: Card) => void) {
    setInterval(() => this.#tick(), 250);
  }

  get scene(): Scene | null {
    return this.#scene;
  }

  show(scene: Scene): void {
    this.#scene = scene;
    this.clock.set(scene);
    const zone = scene.location?.timeZone ?? 'UTC';
    byId('for-prospect').textContent = scene.prospect === '' ? '' : ` for ${scene.prospect}`;
    byId('partner-name').textContent = scene.prospect === '' ? 'your app' : scene.prospect;
    const place = document.getElementById('place');
    if (place) place.textContent = scene.location?.name ?? '';
    byId('zone').textContent = scene.location?.zone ?? '';
    this.#showStory(scene);
    this.#showHome(scene, zone);
    this.#showCards(scene.cards);
    this.#showPhone(scene);
    this.#tick();
    this.#drawn = true;
    byId('demo').dataset['ready'] = 'true';
  }

  #showStory(scene: Scene): void {
    const story = scene.story;
    byId('story-title').textContent = story?.title ?? 'Live view';
    const caption = story
      ? (story.caption ?? story.premise)
      : 'The home, the app and the phone, as they are now. Pick a story and press Play.';
    const node = byId('caption');
    if (caption !== this.#caption) {
      this.#caption = caption;
      node.textContent = caption;
      node.classList.remove('fresh');
      // Restarts the animation: the next frame adds the class again.
      if (this.#drawn) requestAnimationFrame(() => node.classList.add('fresh'));
    }
    byId('steps').replaceChildren(
      ...(story?.steps ?? []).map((step, index) =>
        el('li', {
          className: step.done ? 'done' : '',
          text: step.at,
          title: step.done ? step.caption : `Step ${index + 1}`,
          'aria-label': step.done ? `${step.at}: ${step.caption}` : `Step ${index + 1} at ${step.at}, still to come`,
        }),
      ),
    );
    const demo = byId('demo');
    demo.dataset['story'] = story?.state ?? 'none';
    demo.dataset['stepsDone'] = String(story?.steps.filter((s) => s.done).length ?? 0);
  }

  #showHome(scene: Scene, zone: string): void {
    const homeAway = byId('home-away');
    homeAway.textContent = scene.location?.status ?? '';
    homeAway.dataset['tone'] = scene.location?.homeAway ?? '';
    const monitor = byId('monitor');
    monitor.textContent = scene.location?.monitor ?? '';
    monitor.dataset['tone'] = scene.location?.monitor.endsWith('offline') ? 'offline' : 'online';
    const flow = byId('flow');
    flow.textContent = scene.flow.text;
    flow.dataset['leak'] = String(scene.flow.leakGallonsPerMinute > 0);
    byId('flow-detail').textContent = scene.flow.detail;
    byId('chart-caption').textContent = scene.chart.summary;
    this.#chart.show(scene.chart, zone, this.clock.nowMs());
  }

  #showCards(cards: readonly Card[]): void {
    const list = byId('cards');
    if (cards.length === 0) {
      list.replaceChildren(
        el('li', {
          className: 'empty',
          text: 'Nothing sent yet. When an alert starts or ends, the webhook appears here the moment it is delivered.',
        }),
      );
      return;
    }
    list.replaceChildren(
      ...cards.map((card) => {
        const fresh = this.#drawn && !this.#cardKeys.has(card.key);
        const button = el('button', { type: 'button', className: 'card-raw', text: 'See the request' });
        button.addEventListener('click', () => this.onRawRequest(card));
        const item = el('li', { className: fresh ? 'arrived' : '', 'data-tone': card.tone }, [
          el('div', { className: 'card-head' }, [
            el('strong', { text: card.headline }),
            el('span', { className: 'card-at', text: card.at }),
          ]),
          el('div', { className: 'card-detail', 'data-tone': card.tone, text: card.detail }),
          button,
        ]);
        return item;
      }),
    );
    for (const card of cards) this.#cardKeys.add(card.key);
  }

  #showPhone(scene: Scene): void {
    const notes = scene.phone.notifications;
    byId('notifications').replaceChildren(
      ...notes.map((note) => {
        const fresh = this.#drawn && note.active && !this.#noteKeys.has(`${note.key}|${note.at}`);
        return el('li', { className: fresh ? 'arrived' : '', 'data-active': String(note.active) }, [
          el('div', { className: 'note-app' }, [el('span', { text: scene.appName }), el('span', { text: note.at })]),
          el('div', { className: 'note-title', text: note.title }),
          el('div', { className: 'note-text', 'data-key': note.key, text: this.#noteText(note) }),
        ]);
      }),
    );
    for (const note of notes) this.#noteKeys.add(`${note.key}|${note.at}`);
    byId('phone-note').textContent =
      scene.phone.note ?? (notes.length === 0 ? 'No notifications. All is well at home.' : '');
  }

  #noteText(note: PhoneNotification): string {
    return note.live === null
      ? note.text
      : `${note.live.before}${spokenDuration(this.clock.nowMs() - note.live.sinceMs)}${note.live.after}`;
  }

  /** What moves with the clock between scenes: the time, the phone's durations, the chart's now. */
  #tick(): void {
    const scene = this.#scene;
    if (!scene) return;
    const zone = scene.location?.timeZone ?? 'UTC';
    const nowMs = this.clock.nowMs();
    byId('now-text').textContent = dayAndTime(nowMs, zone);
    byId('phone-time').textContent = clockTime(nowMs, zone);
    for (const node of document.querySelectorAll<HTMLElement>('.note-text')) {
      const note = scene.phone.notifications.find((n) => n.key === node.dataset['key']);
      if (note) node.textContent = this.#noteText(note);
    }
    this.#chart.moveNow(nowMs);
  }
}
