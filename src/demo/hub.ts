import type { ServerResponse } from 'node:http';

import { capReached } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { openEventStream, type EventStream, type StreamSlots } from '../http/event-stream.js';
import { accountChannel, type AccountEvent } from '../live/index.js';
import type { Store } from '../store/store.js';
import { demoChannel, type DemoEvent } from './events.js';
import type { DemoMessage } from './page-config.js';
import type { Scene } from './scene.js';

export interface DemoStreamLimits {
  /** MAX_DEMO_VIEWERS: the view's streams of one account in this process, the presenter's and the audience's. */
  perAccount: number;
  /** STREAM_BUFFER_LIMIT. */
  maxBufferedBytes: number;
  /** A comment line this often keeps proxies from closing an idle stream, and checks that the viewer may still watch. */
  heartbeatMs: number;
}

export interface DemoStreamsDeps {
  store: Store;
  /** MAX_OPEN_STREAMS_TOTAL, shared with the dashboards' and the relays' streams. */
  slots: StreamSlots;
  logger: Logger;
  /** The account's scene now (null when the account is gone). */
  render: (accountId: string) => Promise<Scene | null>;
}

export interface Viewer {
  /** The audience link it came through (revoking it ends the stream at once); none for the presenter. */
  linkId?: string;
  /** Checked at each heartbeat: false ends the stream with a `gone` message (a link expired, a session ended). */
  stillAllowed: () => Promise<{ allowed: true } | { allowed: false; reason: string }>;
}

interface Watcher {
  stream: EventStream;
  viewer: Viewer;
  heartbeat: ReturnType<typeof setInterval>;
}

/** One account's viewers in this process, and what they were last sent. */
interface Feed {
  watchers: Set<Watcher>;
  unsubscribe: (() => Promise<void>) | null;
  /** The last scene sent, as the stream's message text. */
  last: string | null;
  /** Whether the last scene showed a clock that moves by itself (real time): then it is drawn again now and then. */
  clockRuns: boolean;
  timer: ReturnType<typeof setTimeout> | null;
  rendering: Promise<void> | null;
  again: boolean;
  refresh: ReturnType<typeof setInterval>;
}

/** Events of the account that change nothing the view shows. */
const UNSEEN: ReadonlySet<string> = new Set(['request', 'readiness']);
/** A burst of events (a tick: the clock, a step, its alert, its deliveries) is drawn once. */
const COALESCE_MS = 60;
/** A running clock moves the chart's hour and the phone's durations: drawn again this often. */
const REFRESH_MS = 20_000;
/** How long a browser waits before reconnecting a stream that broke. */
const RECONNECT_MS = 3000;

/**
 * The presenter view's live streams (server-sent events). Each account with viewers in this
 * process has one feed: one subscription to its channels on the store's event bus (so it hears
 * every replica), and one scene drawn per burst of changes and sent to all its viewers, so an
 * audience of fifty costs one drawing, not fifty. The presenter and the audience get the same
 * messages. Bounded per account (MAX_DEMO_VIEWERS) and in the process's stream slots
 * (MAX_OPEN_STREAMS_TOTAL); a viewer that stops reading is dropped (STREAM_BUFFER_LIMIT).
 */
export class DemoStreams {
  readonly #feeds = new Map<string, Feed>();

  constructor(
    private readonly deps: DemoStreamsDeps,
    readonly limits: DemoStreamLimits,
  ) {}

  /** Open streams of the account in this process. */
  count(accountId: string): number {
    return this.#feeds.get(accountId)?.watchers.size ?? 0;
  }

  /** Streams the account's view on `res` until the client leaves or may no longer watch; a 409 naming the setting when full. */
  async open(accountId: string, res: ServerResponse, viewer: Viewer): Promise<void> {
    const cap = this.limits.perAccount;
    if (this.count(accountId) >= cap) {
      throw capReached(
        'MAX_DEMO_VIEWERS',
        `This account's presenter view has ${cap} viewers on this sandbox, the most it allows (MAX_DEMO_VIEWERS=${cap}); close a viewer first`,
      );
    }
    // Held by the account the view shows (its link's, for the audience): ended should its slot go to a fairer holder (StreamSlots).
    const giveBack = this.deps.slots.take(accountId, () => watcher.stream.end());
    const feed = this.#feeds.get(accountId) ?? this.#newFeed(accountId);
    const watcher: Watcher = {
      viewer,
      heartbeat: setInterval(() => void this.#check(watcher), this.limits.heartbeatMs),
      stream: openEventStream(res, {
        maxBufferedBytes: this.limits.maxBufferedBytes,
        headers: { 'Cache-Control': 'no-store', Connection: 'keep-alive' },
        onClose: () => {
          clearInterval(watcher.heartbeat);
          giveBack();
          feed.watchers.delete(watcher);
          if (feed.watchers.size === 0) this.#closeFeed(accountId, feed);
        },
        onStalled: (bufferedBytes) =>
          this.deps.logger.warn('event stream closed: its client does not read', {
            stream: 'demo',
            accountId,
            bufferedBytes,
            limit: 'STREAM_BUFFER_LIMIT',
          }),
      }),
    };
    watcher.heartbeat.unref();
    feed.watchers.add(watcher);
    watcher.stream.write(`retry: ${RECONNECT_MS}\n\n`);
    if (feed.unsubscribe === null) await this.#subscribe(accountId, feed);
    if (watcher.stream.closed) return;
    watcher.stream.write(messageText({ type: 'hello' }));
    // The scene the others were sent, else a fresh one (the first viewer, or one drawn meanwhile).
    if (feed.last !== null) watcher.stream.write(feed.last);
    else this.#schedule(accountId, feed, 0);
  }

  /** Ends every open stream (shutdown). */
  closeAll(): void {
    for (const feed of [...this.#feeds.values()]) for (const w of [...feed.watchers]) w.stream.end();
  }

  #newFeed(accountId: string): Feed {
    const feed: Feed = {
      watchers: new Set(),
      unsubscribe: null,
      last: null,
      clockRuns: false,
      timer: null,
      rendering: null,
      again: false,
      refresh: setInterval(() => {
        if (feed.clockRuns) this.#schedule(accountId, feed, 0);
      }, REFRESH_MS),
    };
    feed.refresh.unref();
    this.#feeds.set(accountId, feed);
    return feed;
  }

  async #subscribe(accountId: string, feed: Feed): Promise<void> {
    const onAccount = (message: unknown): void => {
      if (!UNSEEN.has((message as AccountEvent).type)) this.#schedule(accountId, feed, COALESCE_MS);
    };
    const onDemo = (message: unknown): void => {
      const event = message as DemoEvent;
      if (event.type === 'link-revoked') {
        for (const w of [...feed.watchers])
          if (w.viewer.linkId === event.linkId) this.#end(w, 'The presenter ended this link.');
        return;
      }
      this.#schedule(accountId, feed, COALESCE_MS);
    };
    const offAccount = await this.deps.store.events.subscribe(accountChannel(accountId), onAccount);
    const offDemo = await this.deps.store.events.subscribe(demoChannel(accountId), onDemo);
    const off = async (): Promise<void> => {
      await Promise.all([offAccount(), offDemo()]);
    };
    if (feed.watchers.size === 0 || this.#feeds.get(accountId) !== feed) {
      await off().catch(() => undefined);
      return;
    }
    feed.unsubscribe = off;
  }

  #closeFeed(accountId: string, feed: Feed): void {
    if (this.#feeds.get(accountId) === feed) this.#feeds.delete(accountId);
    clearInterval(feed.refresh);
    if (feed.timer !== null) clearTimeout(feed.timer);
    void feed.unsubscribe?.().catch(() => undefined);
    feed.unsubscribe = null;
  }

  /** Draws the scene after `delayMs`, once for every request meanwhile; one drawing at a time. */
  #schedule(accountId: string, feed: Feed, delayMs: number): void {
    if (feed.rendering) {
      feed.again = true;
      return;
    }
    if (feed.timer !== null) return;
    feed.timer = setTimeout(() => {
      feed.timer = null;
      feed.rendering = this.#draw(accountId, feed).finally(() => {
        feed.rendering = null;
        if (feed.again && feed.watchers.size > 0) {
          feed.again = false;
          this.#schedule(accountId, feed, COALESCE_MS);
        }
      });
    }, delayMs);
  }

  async #draw(accountId: string, feed: Feed): Promise<void> {
    let scene: Scene | null;
    try {
      scene = await this.deps.render(accountId);
    } catch (error) {
      this.deps.logger.warn('the presenter view could not be drawn', { accountId, err: error });
      return;
    }
    if (scene === null) {
      for (const w of [...feed.watchers]) this.#end(w, 'This demo is no longer available.');
      return;
    }
    feed.clockRuns = scene.now.rate === 1;
    const message = messageText({ type: 'scene', scene });
    if (message === feed.last) return;
    feed.last = message;
    for (const w of feed.watchers) w.stream.write(message);
  }

  async #check(watcher: Watcher): Promise<void> {
    if (watcher.stream.closed) return;
    watcher.stream.write(': heartbeat\n\n');
    const verdict = await watcher.viewer.stillAllowed().catch(() => ({ allowed: true as const }));
    if (!verdict.allowed) this.#end(watcher, verdict.reason);
  }

  #end(watcher: Watcher, reason: string): void {
    watcher.stream.write(messageText({ type: 'gone', reason }));
    watcher.stream.end();
  }
}

const messageText = (message: DemoMessage): string => `data: ${JSON.stringify(message)}\n\n`;
