import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import type { Relay } from '../client/types.js';

/**
 * The relays `listen` opened, kept on this machine so that the next `listen` for the same
 * sandbox, account and name holds the same relay again: its endpoint stays the same across runs
 * (subscriptions made by hand keep working, and retries of deliveries that failed while nothing
 * listened reach the next run). A relay belongs to the connection that opened it, so its key is
 * what lets a later run be that connection; the file is the user's own (mode 0600), like a
 * credentials file. Without a home folder nothing is kept, and each run opens a new relay.
 */
export class RelayMemory {
  private constructor(private readonly file: string | null) {}

  /** `$XDG_STATE_HOME/water-sandbox/relays.json`, else `$HOME/.local/state/water-sandbox/relays.json`. */
  static of(env: Readonly<Record<string, string | undefined>>): RelayMemory {
    const state = env['XDG_STATE_HOME'] || (env['HOME'] ? join(env['HOME'], '.local', 'state') : null);
    return new RelayMemory(state === null ? null : join(state, 'water-sandbox', 'relays.json'));
  }

  /** The relay remembered for the sandbox, the account (by a hash of its key: the key itself is not written) and the name. */
  async recall(sandbox: string, apiKey: string, name: string): Promise<Relay | null> {
    const entry = (await this.#read())[entryKey(sandbox, apiKey, name)];
    return isRelay(entry) ? entry : null;
  }

  async remember(sandbox: string, apiKey: string, name: string, relay: Relay): Promise<void> {
    const key = entryKey(sandbox, apiKey, name);
    await this.#change((all) => ({ ...all, [key]: relay }));
  }

  async forget(sandbox: string, apiKey: string, name: string): Promise<void> {
    const key = entryKey(sandbox, apiKey, name);
    await this.#change((all) => Object.fromEntries(Object.entries(all).filter(([k]) => k !== key)));
  }

  async #read(): Promise<Record<string, unknown>> {
    if (this.file === null) return {};
    try {
      const parsed: unknown = JSON.parse(await readFile(this.file, 'utf8'));
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
    } catch {
      // None yet, or damaged: a new relay costs nothing but a new endpoint.
      return {};
    }
  }

  /** Writes the file whole, through a temporary file and a rename; a failure to write only costs the next run a new endpoint. */
  async #change(change: (all: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
    if (this.file === null) return;
    const all = change(await this.#read());
    try {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      const temporary = `${this.file}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temporary, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
      await chmod(temporary, 0o600);
      await rename(temporary, this.file);
    } catch {
      // Not kept: the next run opens a new relay.
    }
  }
}

const entryKey = (sandbox: string, apiKey: string, name: string): string =>
  `${sandbox} ${createHash('sha256').update(apiKey).digest('base64url').slice(0, 22)} ${name}`;

function isRelay(value: unknown): value is Relay {
  const r = value as Partial<Record<keyof Relay, unknown>> | null;
  return (
    typeof r?.relayId === 'string' &&
    typeof r.name === 'string' &&
    typeof r.endpoint === 'string' &&
    typeof r.relayKey === 'string'
  );
}
