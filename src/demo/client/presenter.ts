import { byId, el } from '../../dashboard/client/dom.js';
import { sendJson } from '../../dashboard/client/send-json.js';
import { DEMO_PATHS, TICK_MS, type DemoPageConfig } from '../page-config.js';
import type { Link, Scene } from '../view-types.js';

type PresenterConfig = Extract<DemoPageConfig, { role: 'presenter' }>;

class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The presenter's controls: the story (Play, Pause, Next step, Restart, speed, End), the
 * prospect's name, the home shown, and Share. The keyboard drives the story as a presenter's
 * clicker does: space plays and pauses, the right arrow and PageDown go to the next step. While
 * the story plays, the page is its metronome: it asks the sandbox to move it on every TICK_MS.
 */
export class PresenterControls {
  #busy = false;
  /** Whether the last input was the pointer's (see #keysBackAfterPointer). */
  #pointerLast = false;
  #ticking: ReturnType<typeof setInterval> | null = null;
  #tickInFlight = false;
  #scene: Scene | null = null;

  constructor(
    private readonly config: PresenterConfig,
    private readonly signedOut: () => void,
  ) {
    byId('play').addEventListener('click', () => void this.#act(() => this.#playOrPause()));
    byId('next').addEventListener('click', () => void this.#act(() => this.#next()));
    byId('restart').addEventListener(
      'click',
      () => void this.#act(() => this.#send('POST', `${DEMO_PATHS.story}/restart`)),
    );
    byId('end-story').addEventListener('click', () => void this.#act(() => this.#send('DELETE', DEMO_PATHS.story)));
    byId<HTMLSelectElement>('speed', HTMLSelectElement).addEventListener(
      'change',
      () => void this.#act(() => this.#speed()),
    );
    byId<HTMLSelectElement>('location-choice', HTMLSelectElement).addEventListener('change', (event) => {
      const locationId = (event.target as HTMLSelectElement).value;
      void this.#act(() => this.#send('PUT', DEMO_PATHS.view, { locationId }));
    });
    const prospect = byId<HTMLInputElement>('prospect', HTMLInputElement);
    let typing: ReturnType<typeof setTimeout> | undefined;
    prospect.addEventListener('input', () => {
      clearTimeout(typing);
      typing = setTimeout(
        () => void this.#act(() => this.#send('PUT', DEMO_PATHS.view, { prospect: prospect.value })),
        400,
      );
    });
    this.#shareDialog();
    document.addEventListener('keydown', (event) => this.#key(event));
    this.#keysBackAfterPointer();
    if (config.prospectAsked !== null) {
      prospect.value = config.prospectAsked;
      void this.#act(() => this.#send('PUT', DEMO_PATHS.view, { prospect: config.prospectAsked }));
    }
  }

  /** The controls follow the story as the scene tells it; ticking while it plays. */
  show(scene: Scene): void {
    this.#scene = scene;
    const story = scene.story;
    const play = byId<HTMLButtonElement>('play', HTMLButtonElement);
    play.textContent = story?.state === 'playing' ? 'Pause' : story?.state === 'ended' ? 'Play again' : 'Play';
    play.setAttribute('aria-pressed', String(story?.state === 'playing'));
    byId<HTMLButtonElement>('restart', HTMLButtonElement).disabled = story === null;
    byId<HTMLButtonElement>('end-story', HTMLButtonElement).disabled = story === null;
    byId<HTMLButtonElement>('next', HTMLButtonElement).disabled = story?.state === 'ended';
    const choice = byId<HTMLSelectElement>('story-choice', HTMLSelectElement);
    if (story && document.activeElement !== choice) choice.value = story.scenario;
    if (story) byId<HTMLSelectElement>('speed', HTMLSelectElement).value = String(story.speed);
    const prospect = byId<HTMLInputElement>('prospect', HTMLInputElement);
    if (document.activeElement !== prospect && this.config.prospectAsked === null) prospect.value = scene.prospect;
    const where = this.config.locations.find((l) => l.name === scene.location?.name);
    if (where) byId<HTMLSelectElement>('location-choice', HTMLSelectElement).value = where.locationId;
    if (story?.state === 'playing') this.#startTicking();
    else this.#stopTicking();
  }

  stop(): void {
    this.#stopTicking();
  }

  #startTicking(): void {
    this.#ticking ??= setInterval(() => {
      if (this.#tickInFlight) return;
      this.#tickInFlight = true;
      this.#send('POST', `${DEMO_PATHS.story}/tick`)
        .catch((error: unknown) => this.#fail(error))
        .finally(() => (this.#tickInFlight = false));
    }, TICK_MS);
  }

  #stopTicking(): void {
    if (this.#ticking !== null) clearInterval(this.#ticking);
    this.#ticking = null;
  }

  /** The story picked in the list, loaded unless it is the one loaded already (then nothing). */
  async #loaded(): Promise<void> {
    const chosen = byId<HTMLSelectElement>('story-choice', HTMLSelectElement).value;
    if (this.#scene?.story?.scenario === chosen) return;
    const speed = Number(byId<HTMLSelectElement>('speed', HTMLSelectElement).value);
    await this.#send('POST', DEMO_PATHS.story, { scenario: chosen, speed });
  }

  async #playOrPause(): Promise<void> {
    const story = this.#scene?.story;
    const chosen = byId<HTMLSelectElement>('story-choice', HTMLSelectElement).value;
    if (story?.state === 'playing' && story.scenario === chosen) {
      await this.#send('POST', `${DEMO_PATHS.story}/pause`);
      return;
    }
    await this.#loaded();
    if (story?.state === 'ended' && story.scenario === chosen) await this.#send('POST', `${DEMO_PATHS.story}/restart`);
    await this.#send('POST', `${DEMO_PATHS.story}/play`);
  }

  async #next(): Promise<void> {
    await this.#loaded();
    await this.#send('POST', `${DEMO_PATHS.story}/next`);
  }

  async #speed(): Promise<void> {
    if (!this.#scene?.story) return;
    await this.#send('PUT', `${DEMO_PATHS.story}/speed`, {
      speed: Number(byId<HTMLSelectElement>('speed', HTMLSelectElement).value),
    });
  }

  /**
   * A control clicked with the pointer gives the keyboard back to the page, so the clicker's space
   * still plays and pauses (and does not press the button clicked last, or open the list picked
   * from); a dialog closed with the pointer does not hand focus back to its opener either. Keyboard
   * users keep the focus where they put it. The focus is let go soon after the click (no focus
   * ring left on a clicked control), and at the latest by the next key (#key), since a clicker's
   * key can come before that.
   */
  #keysBackAfterPointer(): void {
    document.addEventListener('pointerdown', () => (this.#pointerLast = true), true);
    const release = (): void => {
      if (this.#pointerLast) setTimeout(() => this.#letGoOfPointerFocus(), 0);
    };
    document.addEventListener('click', (event) => {
      if ((event.target as HTMLElement | null)?.closest('footer.controls button')) release();
    });
    document.addEventListener('change', (event) => {
      if ((event.target as HTMLElement | null)?.closest('footer.controls select, #location-choice')) release();
    });
    for (const dialog of document.querySelectorAll('dialog')) dialog.addEventListener('close', release);
  }

  /** Blurs a control the pointer left focused (not a text field, where a click means typing). */
  #letGoOfPointerFocus(): void {
    const focused = document.activeElement;
    if (!(focused instanceof HTMLElement) || focused === document.body) return;
    if (focused.closest('input, textarea, dialog[open]')) return;
    focused.blur();
  }

  #key(event: KeyboardEvent): void {
    const afterPointer = this.#pointerLast;
    this.#pointerLast = false;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (afterPointer) this.#letGoOfPointerFocus();
    const target = (afterPointer ? document.activeElement : event.target) as HTMLElement | null;
    if (target?.closest('input, select, textarea, dialog[open]')) return;
    if (event.key === ' ' || event.key === 'Spacebar') {
      // A focused button answers space itself.
      if (target?.closest('button, a')) return;
      event.preventDefault();
      void this.#act(() => this.#playOrPause());
    } else if (event.key === 'ArrowRight' || event.key === 'PageDown') {
      event.preventDefault();
      void this.#act(() => this.#next());
    }
  }

  /** One action at a time: a clicker pressed twice quickly does not load a story twice. */
  async #act(action: () => Promise<unknown>): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      await action();
      this.#say('');
    } catch (error) {
      this.#fail(error);
    } finally {
      this.#busy = false;
    }
  }

  #say(text: string, bad = false): void {
    const flash = byId('flash');
    flash.textContent = text;
    flash.dataset['tone'] = bad ? 'bad' : '';
  }

  #fail(error: unknown): void {
    if (error instanceof Refused && error.status === 401) {
      this.stop();
      this.signedOut();
      return;
    }
    this.#say(error instanceof Error ? error.message : String(error), true);
  }

  async #send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const answer = await sendJson(method, path, body, { 'X-CSRF-Token': this.config.csrfToken });
    if (answer === null) throw new Refused(0, 'The sandbox did not answer; is it still running?');
    const data = answer.data as { message?: string } | null;
    if (answer.status < 200 || answer.status >= 300)
      throw new Refused(answer.status, data?.message ?? `The sandbox answered ${answer.status}`);
    return data as T;
  }

  #shareDialog(): void {
    const dialog = byId<HTMLDialogElement>('share-dialog', HTMLDialogElement);
    const status = (text: string): void => void (byId('share-status').textContent = text);
    const list = async (): Promise<void> => {
      const { links } = await this.#send<{ links: Link[] }>('GET', DEMO_PATHS.links);
      const zone = this.#scene?.location?.timeZone ?? 'UTC';
      const ends = new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', timeZone: zone });
      byId('links').replaceChildren(
        ...(links.length === 0
          ? [el('li', { className: 'empty', text: 'No link yet: make one for your audience.' })]
          : links.map((link, index) => {
              const input = el('input', {
                type: 'text',
                readonly: true,
                value: link.url,
                'aria-label': `Audience link ${index + 1}`,
              });
              const copy = el('button', { type: 'button', text: 'Copy' });
              copy.addEventListener('click', () => {
                input.select();
                void navigator.clipboard.writeText(link.url).then(
                  () => status('Copied: paste it into the meeting chat.'),
                  () => status('Select the link and copy it.'),
                );
              });
              const revoke = el('button', { type: 'button', text: 'Revoke' });
              revoke.addEventListener('click', () => {
                void this.#send('DELETE', `${DEMO_PATHS.links}/${encodeURIComponent(link.linkId)}`)
                  .then(() => (status('Revoked: that link shows nothing any more.'), list()))
                  .catch((error: unknown) => status(error instanceof Error ? error.message : String(error)));
              });
              return el('li', {}, [
                input,
                copy,
                revoke,
                el('span', { className: 'ends', text: `ends at ${ends.format(Date.parse(link.expiresAt))}` }),
              ]);
            })),
      );
    };
    byId('share').addEventListener('click', () => {
      status('');
      dialog.showModal();
      list().catch((error: unknown) => status(error instanceof Error ? error.message : String(error)));
    });
    byId('new-link').addEventListener('click', () => {
      this.#send<Link>('POST', DEMO_PATHS.links)
        .then(() => (status('A new link: copy it for your audience.'), list()))
        .catch((error: unknown) => status(error instanceof Error ? error.message : String(error)));
    });
    byId('close-share').addEventListener('click', () => dialog.close());
  }
}
