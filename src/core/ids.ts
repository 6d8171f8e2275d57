import { randomBytes, randomUUID } from 'node:crypto';

/** Unseeded identifiers and secrets. Injected so a test can substitute predictable values. */
export interface Ids {
  /** A random UUID v4, used for every resource id. */
  uuid(): string;
  /** A URL-safe random secret of about `bytes * 4 / 3` characters. */
  secret(bytes?: number): string;
}

export const cryptoIds: Ids = {
  uuid: () => randomUUID(),
  secret: (bytes = 32) => randomBytes(bytes).toString('base64url'),
};
