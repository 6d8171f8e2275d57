import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** TLS: off, a certificate generated at start-up, or given files. */
export type TlsConfig =
  { mode: 'off' } | { mode: 'self-signed' } | { mode: 'files'; certFile: string; keyFile: string };

export interface TlsMaterial {
  cert: string;
  key: string;
  /** Where the certificate's PEM can be read by a client that has to trust it. */
  certFile: string;
}

const DAY_MS = 86_400_000;

/**
 * The certificate and key for https, or null when TLS is off. `self-signed` makes a fresh
 * certificate for localhost, 127.0.0.1 and ::1 and writes its PEM into the data folder
 * (or the temp folder), so a client can trust it (e.g. NODE_EXTRA_CA_CERTS=<file>).
 */
export async function loadTls(tls: TlsConfig, certDir: string, now: Date): Promise<TlsMaterial | null> {
  if (tls.mode === 'off') return null;
  if (tls.mode === 'files') {
    return {
      cert: await readFile(tls.certFile, 'utf8'),
      key: await readFile(tls.keyFile, 'utf8'),
      certFile: resolve(tls.certFile),
    };
  }
  // Loaded only when TLS is on: it takes a tenth of a second to import.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    notBeforeDate: new Date(now.getTime() - DAY_MS),
    notAfterDate: new Date(now.getTime() + 365 * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  await mkdir(certDir, { recursive: true });
  const certFile = resolve(join(certDir, 'sandbox-cert.pem'));
  await writeFile(certFile, pems.cert);
  return { cert: pems.cert, key: pems.private, certFile };
}
