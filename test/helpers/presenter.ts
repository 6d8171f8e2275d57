import { get, type IncomingMessage } from 'node:http';

import type { DemoMessage, DemoPageConfig } from '../../src/demo/page-config.js';
import type { Scene, StoryView } from '../../src/demo/view-types.js';
import { signInToDashboard } from './dashboard-sign-in.js';
import { DEMO_USER } from './demo.js';
import { unescapeHtml } from './html.js';

/** An answer of the sandbox as the presenter's page reads it. */
export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** A browser signed in to the dashboard, with the presenter view open: its session, its CSRF token, and its calls. */
export interface Presenter {
  cookie: string;
  config: Extract<DemoPageConfig, { role: 'presenter' }>;
  /** The page's first scene, as it came in the page. */
  scene: Scene;
  /** A call of the page: the session cookie, and X-CSRF-Token unless `csrf` is false. */
  call<T = unknown>(method: string, path: string, body?: unknown, options?: { csrf?: boolean }): Promise<Answer<T>>;
  /** A story action (POST /demo/story/<action>), expecting 200. */
  story(action: 'play' | 'pause' | 'tick' | 'next' | 'restart'): Promise<StoryView>;
}

/** What the page carries in an attribute of #demo, as it was before the page escaped it. */
export function pageData(page: string, attribute: 'config'): DemoPageConfig;
export function pageData(page: string, attribute: 'scene'): Scene;
export function pageData(page: string, attribute: 'config' | 'scene'): unknown {
  const match = new RegExp(`data-${attribute}="([^"]*)"`).exec(page);
  if (!match) throw new Error(`no data-${attribute} in the page:\n${page.slice(0, 2000)}`);
  return JSON.parse(unescapeHtml(match[1]!));
}

/** Signs in to the dashboard with fetch and opens GET /demo, as a browser does. */
export async function openPresenter(baseUrl: string, credentials = DEMO_USER): Promise<Presenter> {
  const { cookie } = await signInToDashboard(baseUrl, credentials);
  const res = await fetch(`${baseUrl}/demo`, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`GET /demo answered ${res.status}`);
  const page = await res.text();
  const config = pageData(page, 'config');
  if (config.role !== 'presenter') throw new Error('GET /demo did not give the presenter its page');
  const call = async <T>(
    method: string,
    path: string,
    body?: unknown,
    options: { csrf?: boolean } = {},
  ): Promise<Answer<T>> => {
    const headers: Record<string, string> = { cookie, accept: 'application/json' };
    if (options.csrf !== false) headers['x-csrf-token'] = config.csrfToken;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const answer = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await answer.text();
    return { status: answer.status, headers: answer.headers, body: (text === '' ? null : JSON.parse(text)) as T };
  };
  return {
    cookie,
    config,
    scene: pageData(page, 'scene'),
    call,
    story: async (action) => {
      const answer = await call<StoryView>('POST', `/demo/story/${action}`);
      if (answer.status !== 200)
        throw new Error(`POST /demo/story/${action} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body;
    },
  };
}

/** The presenter view's event stream as a browser's EventSource reads it: its messages, in order. */
export class DemoStream {
  readonly messages: DemoMessage[] = [];
  closed = false;
  #buffer = '';
  #waiters: (() => void)[] = [];

  private constructor(readonly response: IncomingMessage) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let end: number;
      while ((end = this.#buffer.indexOf('\n\n')) >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const data = block.split('\n').find((line) => line.startsWith('data: '));
        if (data) this.messages.push(JSON.parse(data.slice(6)) as DemoMessage);
      }
      this.#wake();
    });
    response.on('close', () => {
      this.closed = true;
      this.#wake();
    });
  }

  /** Opens `url` (GET /demo/events with a cookie, or an audience link's /events). */
  static open(url: string, cookie?: string): Promise<DemoStream> {
    return new Promise((resolve, reject) => {
      get(url, { headers: { accept: 'text/event-stream', ...(cookie ? { cookie } : {}) } }, (res) =>
        resolve(new DemoStream(res)),
      ).on('error', reject);
    });
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** The first scene (from the start of the stream) that matches; fails when the stream closes first. */
  async scene(matches: (scene: Scene) => boolean = () => true): Promise<Scene> {
    for (;;) {
      for (const m of this.messages) if (m.type === 'scene' && matches(m.scene as Scene)) return m.scene as Scene;
      if (this.closed) throw new Error('the stream closed before such a scene');
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** The stream's first message, once it has come; fails when the stream closes first. */
  async first(): Promise<DemoMessage> {
    for (;;) {
      const [message] = this.messages;
      if (message !== undefined) return message;
      if (this.closed) throw new Error('the stream closed before its first message');
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Resolves once the stream has closed. */
  async end(): Promise<void> {
    while (!this.closed) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  close(): void {
    this.response.destroy();
  }
}
