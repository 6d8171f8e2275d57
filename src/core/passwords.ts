import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number },
) => Promise<Buffer>;
const SCRYPT_COST = 16384;

const sha256 = (salt: Buffer, password: string): Buffer =>
  createHash('sha256').update(salt).update(password, 'utf8').digest();

/**
 * `sha256$<salt>$<hash>`, both base64url.
 * SANDBOX: a real service hashes passwords slowly (scrypt, argon2). Every sandbox password is
 * either written in plain text in a fixture file or 96 random bits made by the sandbox, so a
 * slow hash would protect nothing, while each scrypt check costs 16 MB and tens of milliseconds.
 * Hashes of version 0.1 (`scrypt$...`) still verify.
 */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `sha256$${salt.toString('base64url')}$${sha256(salt, password).toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const saltBytes = Buffer.from(salt, 'base64url');
  let actual: Buffer;
  if (scheme === 'scrypt') actual = await scrypt(password, saltBytes, expected.length, { N: SCRYPT_COST });
  else if (scheme === 'sha256') actual = sha256(saltBytes, password);
  else return false;
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
