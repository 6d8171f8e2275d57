import type { ErrorAnswer } from '../api-types.js';
import { DASHBOARD_PATHS, type PageConfig, type TokenAnswer } from '../page-config.js';

/** Refusals that a fresh token cures: the clock moved past its expiry, or tokens were expired or revoked. */
const TOKEN_REFUSALS = new Set(['token_expired', 'token_revoked', 'invalid_credentials']);

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The browser session ended (signed out here or elsewhere): the page stops and offers to sign in. */
export class SignedOut extends Error {}

/**
 * The page's client of the public API, with the page's access token. The token expires on the
 * account clock like any access token; when the API refuses it, the client gets a fresh one
 * from the login session (POST /dashboard/token) and repeats the call once, so moving the
 * clock or expiring tokens never interrupts the page.
 */
export class Api {
  #token: string;
  #renewing: Promise<void> | null = null;
  #signedOut = false;

  constructor(
    private readonly config: PageConfig,
    private readonly onSignedOut: () => void,
  ) {
    this.#token = config.accessToken;
  }

  get token(): string {
    return this.#token;
  }

  async get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  async post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const first = await this.#send(method, path, body);
    if (first.status === 403 && TOKEN_REFUSALS.has(first.data?.error ?? '')) {
      await this.renew();
      return this.#answer(method, path, await this.#send(method, path, body)) as T;
    }
    return this.#answer(method, path, first) as T;
  }

  /** A fresh token from the login session; concurrent callers share one renewal. */
  renew(): Promise<void> {
    this.#renewing ??= (async () => {
      try {
        const res = await fetch(DASHBOARD_PATHS.token, {
          method: 'POST',
          headers: { 'X-CSRF-Token': this.config.csrfToken, Accept: 'application/json' },
          cache: 'no-store',
        });
        if (res.status === 401 || res.status === 403) this.#endSession();
        if (!res.ok) throw new ApiError(res.status, 'the sandbox did not renew the page\u2019s access token');
        this.#token = ((await res.json()) as TokenAnswer).accessToken;
      } finally {
        this.#renewing = null;
      }
    })();
    return this.#renewing;
  }

  #endSession(): never {
    if (!this.#signedOut) {
      this.#signedOut = true;
      this.onSignedOut();
    }
    throw new SignedOut('signed out');
  }

  async #send(
    method: string,
    path: string,
    body: unknown,
  ): Promise<{ status: number; data: (ErrorAnswer & Record<string, unknown>) | null }> {
    if (this.#signedOut) throw new SignedOut('signed out');
    const headers: Record<string, string> = { Authorization: `Bearer ${this.#token}`, Accept: 'application/json' };
    const init: RequestInit = { method, headers, cache: 'no-store' };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await fetch(path, init);
    } catch {
      throw new ApiError(0, `the sandbox did not answer ${method} ${path.split('?')[0] ?? path}`);
    }
    const text = await res.text();
    let data: (ErrorAnswer & Record<string, unknown>) | null = null;
    try {
      data = text === '' ? null : (JSON.parse(text) as ErrorAnswer & Record<string, unknown>);
    } catch {
      data = null;
    }
    return { status: res.status, data };
  }

  #answer(
    method: string,
    path: string,
    { status, data }: { status: number; data: (ErrorAnswer & Record<string, unknown>) | null },
  ): unknown {
    if (status >= 200 && status < 300) return data;
    throw new ApiError(status, data?.message ?? `${method} ${path.split('?')[0] ?? path} failed`, data?.error);
  }
}

export const describeError = (error: unknown): string =>
  error instanceof ApiError
    ? `${error.message}${error.status ? ` (HTTP ${error.status})` : ''}`
    : error instanceof Error
      ? error.message
      : String(error);
