import { AccountClient, SandboxAccount } from './account.js';
import { sandboxBaseUrl, SandboxHttp } from './http.js';
import type { AccountOptions, CreatedAccount, Health } from './types.js';

export interface WaterSandboxOptions {
  /** The sandbox's ADMIN_TOKEN, when it has one: account creation then needs it. */
  adminToken?: string;
}

/**
 * A running sandbox, by its URL (`http://localhost:8080`, a container's mapped port, a hosted
 * one): health, fresh accounts, and the helpers of an account (AccountClient).
 *
 *   const sandbox = new WaterSandbox(process.env.SANDBOX_URL ?? 'http://localhost:8080');
 *   const account = await sandbox.createAccount();
 */
export class WaterSandbox {
  readonly url: string;
  readonly #http: SandboxHttp;

  constructor(url: string, options: WaterSandboxOptions = {}) {
    this.url = sandboxBaseUrl(url);
    this.#http = new SandboxHttp(this.url, options.adminToken ?? null);
  }

  /** GET /healthz: `{ status: 'ok', version, store }` once ready; throws a SandboxError (503) while it is not. */
  async health(): Promise<Health> {
    return (await this.#http.call<Health>('GET', '/healthz')).body;
  }

  /** A fresh, isolated account (POST /sandbox/accounts): one per test, so tests never share state. */
  async createAccount(options: AccountOptions = {}): Promise<SandboxAccount> {
    const { body } = await this.#http.call<CreatedAccount>('POST', '/sandbox/accounts', options);
    return new SandboxAccount(new SandboxHttp(this.url, body.apiKey), body);
  }

  /** The helpers for an account whose API key you have (`WATER_API_KEY` from `water-sandbox accounts create`). */
  account(apiKey: string): AccountClient {
    return new AccountClient(new SandboxHttp(this.url, apiKey));
  }
}
