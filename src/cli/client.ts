import { SandboxError, SandboxHttp, type CallOptions, type SandboxAnswer } from '../client/http.js';
import { CliError } from './context.js';

export type { SandboxAnswer };

/** The demo account's key (README.md#demo-data): the default when neither --api-key nor WATER_API_KEY is given. */
export const DEMO_API_KEY = 'demo_api_key_for_the_water_monitoring_sandbox';
export const DEFAULT_SANDBOX_URL = 'http://localhost:8080';

export interface ClientOptions {
  sandbox?: string;
  apiKey?: string;
}

/** --sandbox, then SANDBOX_URL, then http://localhost:8080; --api-key, then WATER_API_KEY, then the demo key (`keyFrom` says which). */
export function resolveTarget(
  options: ClientOptions,
  env: Readonly<Record<string, string | undefined>>,
): { baseUrl: string; apiKey: string; keyFrom: '--api-key' | 'WATER_API_KEY' | 'demo' } {
  const given = options.sandbox ?? (env['SANDBOX_URL'] || DEFAULT_SANDBOX_URL);
  if (!URL.canParse(given) || !/^https?:$/.test(new URL(given).protocol)) {
    throw new CliError(
      `--sandbox (or SANDBOX_URL) must be an http or https URL such as ${DEFAULT_SANDBOX_URL}; got ${JSON.stringify(given)}`,
      2,
    );
  }
  const keyFrom = options.apiKey !== undefined ? '--api-key' : env['WATER_API_KEY'] ? 'WATER_API_KEY' : 'demo';
  return {
    baseUrl: given.replace(/\/+$/, ''),
    apiKey: options.apiKey ?? (env['WATER_API_KEY'] || DEMO_API_KEY),
    keyFrom,
  };
}

/**
 * Says on stderr that a command runs on the demo account for want of a key of the partner's own:
 * every user of the sandbox shares that account. `what` says what the command does with it, `fix` what to do.
 */
export function warnOfDemoKey(
  keyFrom: ReturnType<typeof resolveTarget>['keyFrom'],
  ctx: { stderr(text: string): void },
  what: string,
  fix = 'set WATER_API_KEY to the key of your own account (water-sandbox accounts create makes one)',
): void {
  if (keyFrom !== 'demo') return;
  ctx.stderr(
    `warning: neither --api-key nor WATER_API_KEY is set, so ${what}, which every user of this sandbox shares; ${fix}\n`,
  );
}

/** The client library's error as the CLI reports it: one line, and where to point the CLI when the sandbox is not there. */
export function cliErrorOf(error: unknown): unknown {
  if (!(error instanceof SandboxError)) return error;
  return new CliError(
    error.status === null ? `${error.message}; is it running? Point --sandbox or SANDBOX_URL at it` : error.message,
  );
}

/** JSON calls to a running sandbox with the account's key (src/client/http.ts). A failure is a CliError with the sandbox's own `message`. */
export class SandboxClient {
  readonly http: SandboxHttp;

  constructor(baseUrl: string, credential: string) {
    this.http = new SandboxHttp(baseUrl, credential);
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** `path` starts with a slash; `accept` lists error statuses to return instead of throwing. */
  async call<T>(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<SandboxAnswer<T>> {
    try {
      return await this.http.call<T>(method, path, body, options);
    } catch (error) {
      throw cliErrorOf(error);
    }
  }
}
