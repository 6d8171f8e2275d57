import { BEHIND_HTTPS_PROXY } from './dashboard-sign-in.js';
import { formFields } from './oauth.js';

/** An answer as a browser sees it, read whole: status, where it redirects, its cookies set and its text. */
export interface BrowserAnswer {
  status: number;
  location: string | null;
  text: string;
  headers: Headers;
}

/**
 * A browser of a hosted sandbox, over real HTTP: behind the https proxy (so the sandbox sends its
 * Secure __Host- cookies), keeping its cookies as a browser does, following no redirect (a test
 * reads where it would go). `at` is the sandbox it talks to now: a test may move it to another
 * replica, cookies and all. Another site's page is a request sent without this browser's say,
 * with its cookies all the same (a top-level navigation: SameSite=Lax lets them go).
 */
export class HostedBrowser {
  readonly #cookies: Map<string, string>;

  constructor(
    public at: string,
    cookies = new Map<string, string>(),
  ) {
    this.#cookies = cookies;
  }

  /** The same browser (its cookies shared) talking to `url`: another replica, say. */
  via(url: string): HostedBrowser {
    return new HostedBrowser(url, this.#cookies);
  }

  get cookieHeader(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async get(path: string): Promise<BrowserAnswer> {
    return this.#send(path, { method: 'GET' });
  }

  async post(path: string, fields: Record<string, string>): Promise<BrowserAnswer> {
    return this.#send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
  }

  /** Posts the form of `page` (its hidden fields) to `path`, with `changed` fields set (or overridden). */
  async submit(page: BrowserAnswer, path: string, changed: Record<string, string> = {}): Promise<BrowserAnswer> {
    return this.post(path, { ...formFields(page.text), ...changed });
  }

  /** Signs in on the dashboard's form, as the user would. */
  async signIn(credentials: { email: string; password: string }): Promise<void> {
    const form = await this.get('/');
    const signedIn = await this.submit(form, '/dashboard/sign-in', credentials);
    if (signedIn.status !== 303) throw new Error(`the dashboard sign-in answered ${signedIn.status}: ${signedIn.text}`);
  }

  async #send(path: string, init: { method: string; headers?: Record<string, string>; body?: URLSearchParams }) {
    const cookie = this.cookieHeader;
    const res = await fetch(`${this.at}${path}`, {
      ...init,
      redirect: 'manual',
      headers: { ...BEHIND_HTTPS_PROXY, ...(cookie === '' ? {} : { cookie }), ...init.headers },
    });
    for (const set of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = set.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const expired = attributes.some((a) => /^\s*expires=thu, 01 jan 1970/i.test(a) || /^\s*max-age=0\b/i.test(a));
      if (expired) this.#cookies.delete(name);
      else this.#cookies.set(name, pair.slice(at + 1));
    }
    return { status: res.status, location: res.headers.get('location'), text: await res.text(), headers: res.headers };
  }
}
