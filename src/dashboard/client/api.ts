import type { ErrorAnswer } from '../api-types.js';
import { DASHBOARD_PATHS, type PageConfig, type TokenAnswer } from '../page-config.js';
import { sendJson } from './send-json.js';

/** Refusals that a fresh token cures: it ran out, or tokens were expired (POST /sandbox/tokens/expire) or revoked. */
const TOKEN_REFUSALS = new Set(['token_expired', 'token_revoked', 'invalid_credentials']);

/**
 * The share of a token's remaining life after which the page renews it before its next call.
 * The sandbox hands out a new token once less than half of a lifetime is left (it reuses a token
 * with more), so renewing after 60% always brings a new one, well before the old one runs out.
 */
const RENEW_AFTER = 0.6;

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
 * The page's client of the public API, with the page's access token. The token's lifetime is
 * real time, so moving the account's clock does not touch it; the client renews it from the
 * login session (POST /dashboard/token) before it runs out, and when the API refuses it anyway
 * (tokens expired or revoked, a computer that slept) it renews and repeats the call once, so
 * nothing interrupts the page.
 */
export class Api {
  #token: string;
  /** When to renew the token before its next call, on the browser's monotonic clock (performance.now). */
  #renewAt: number;
  #renewing: Promise<void> | null = null;
  #signedOut = false;

  constructor(
    private readonly config: PageConfig,
    private readonly onSignedOut: () => void,
  ) {
    this.#token = config.accessToken;
    this.#renewAt = renewalTime(config.tokenExpiresIn);
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
    // A renewal that fails for want of an answer leaves the old token to be tried.
    if (performance.now() >= this.#renewAt)
      await this.renew().catch((error: unknown) => {
        if (error instanceof SignedOut) throw error;
      });
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
        const answer = (await res.json()) as TokenAnswer;
        this.#token = answer.accessToken;
        this.#renewAt = renewalTime(answer.expiresIn);
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
    const answer = await sendJson(method, path, body, { Authorization: `Bearer ${this.#token}` });
    if (answer === null) throw new ApiError(0, `the sandbox did not answer ${method} ${path.split('?')[0] ?? path}`);
    return { status: answer.status, data: answer.data as (ErrorAnswer & Record<string, unknown>) | null };
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

const renewalTime = (expiresInSeconds: number): number => performance.now() + expiresInSeconds * 1000 * RENEW_AFTER;

export const describeError = (error: unknown): string =>
  error instanceof ApiError
    ? `${error.message}${error.status ? ` (HTTP ${error.status})` : ''}`
    : error instanceof Error
      ? error.message
      : String(error);
