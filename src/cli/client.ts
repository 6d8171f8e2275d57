import { SandboxError, SandboxHttp, unreachableError, type CallOptions, type SandboxAnswer } from '../client/http.js';
import { CliError } from './context.js';

export type { SandboxAnswer };

/** The demo account's key (README.md#demo-data): the default when neither --api-key nor WATER_API_KEY is given. */
export const DEMO_API_KEY = 'demo_api_key_for_the_water_monitoring_sandbox';
/** The keys the README publishes (the demo account's and the second fixture account's): every user of a sandbox shares them. */
const PUBLISHED_KEYS: readonly string[] = [DEMO_API_KEY, 'other_api_key_for_the_water_monitoring_sandbox'];
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

/** Whether a key is one every user of a sandbox knows (a fixture account's, published in the README). */
export const isSharedKey = (apiKey: string): boolean => PUBLISHED_KEYS.includes(apiKey);

/**
 * The warning of a client command run without a key of the partner's own (stderr): `what` it
 * does with the shared account, and what to use instead. Every command that uses the key says
 * it (commands.ts, readiness, listen).
 */
export function sharedAccountWarning(
  keyFrom: ReturnType<typeof resolveTarget>['keyFrom'],
  what: string,
  instead = 'the key of your own account (water-sandbox accounts create)',
): string {
  const why =
    keyFrom === 'demo'
      ? 'neither --api-key nor WATER_API_KEY is set, so'
      : `the key of ${keyFrom} is a published one of the shared demo data, so`;
  return `warning: ${why} this ${what} the demo account, which every user of this sandbox shares; set WATER_API_KEY to ${instead}\n`;
}

/**
 * Whether the sandbox says it is hosted (its PUBLIC_URL is not loopback): the X-Sandbox-Hosted
 * header of GET /healthz. A sandbox that does not say (an older version) is taken as local.
 */
export async function sandboxIsHosted(baseUrl: string): Promise<boolean> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/healthz`);
  } catch (error) {
    throw cliErrorOf(unreachableError(baseUrl, error));
  }
  await response.body?.cancel();
  return response.headers.get('x-sandbox-hosted') === 'true';
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
