import { join } from 'node:path';

import type { Settings } from '../store.js';
import { isObject } from './loaded-account.js';
import { LowdbFile, StoreFileError } from './lowdb-file.js';

export const STORE_SCHEMA_VERSION = 2;

interface StoreFileData {
  schemaVersion: number;
  settings: Record<string, string>;
}

/** Named values of the embedded store, in store.json beside its schema version (the file that says a folder holds a store). */
export class EmbeddedSettings implements Settings {
  private constructor(readonly file: LowdbFile<StoreFileData>) {}

  /** store.json of `dir` (null: memory); `fresh` when there was none, and a new one is written. */
  static async open(dir: string | null): Promise<{ settings: EmbeddedSettings; fresh: boolean }> {
    const existing = dir === null ? null : await LowdbFile.open(join(dir, 'store.json'), validateStoreFile);
    const file =
      existing ??
      LowdbFile.create<StoreFileData>(dir === null ? null : join(dir, 'store.json'), {
        schemaVersion: STORE_SCHEMA_VERSION,
        settings: {},
      });
    return { settings: new EmbeddedSettings(file), fresh: existing === null };
  }

  get(name: string): Promise<string | null> {
    return Promise.resolve(this.file.data.settings[name] ?? null);
  }

  async set(name: string, value: string): Promise<void> {
    this.file.data.settings[name] = value;
    await this.file.save();
  }

  async setIfAbsent(name: string, value: string): Promise<string> {
    const existing = this.file.data.settings[name];
    if (existing !== undefined) return existing;
    this.file.data.settings[name] = value;
    await this.file.save();
    return value;
  }
}

function validateStoreFile(parsed: unknown): StoreFileData {
  if (!isObject(parsed) || parsed['schemaVersion'] !== STORE_SCHEMA_VERSION || !isObject(parsed['settings'])) {
    throw new StoreFileError(
      `store.json is not a water-sandbox store of schemaVersion ${STORE_SCHEMA_VERSION}; point DATA_DIR at an empty folder to start afresh`,
    );
  }
  return parsed as unknown as StoreFileData;
}
