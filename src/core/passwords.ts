import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number, options: { N: number }) => Promise<Buffer>;
const KEY_LENGTH = 32;
/** scrypt's cost: Node's default (2^14) for passwords people choose; 2^10 for long random ones. */
const COST = { default: 16384, low: 1024 } as const;

/** `scrypt$<salt>$<hash>`, both base64url, or `scrypt:<N>$<salt>$<hash>` for another cost than the default. */
export async function hashPassword(password: string, options: { cost?: keyof typeof COST } = {}): Promise<string> {
  const n = COST[options.cost ?? 'default'];
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, { N: n });
  const scheme = n === COST.default ? 'scrypt' : `scrypt:${n}`;
  return `${scheme}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  const match = /^scrypt(?::(\d+))?$/.exec(scheme ?? '');
  if (!match || !salt || !hash) return false;
  const n = match[1] === undefined ? COST.default : Number(match[1]);
  if (n !== COST.default && n !== COST.low) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, { N: n });
  return timingSafeEqual(actual, expected);
}
