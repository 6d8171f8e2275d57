import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';

import { loadConfig } from './config.js';

/**
 * The container's HEALTHCHECK: GET /healthz on this container's own port, over https when
 * TLS is on (the certificate is not checked: it is our own, possibly self-signed).
 */
const config = loadConfig(process.env);
const get = config.tls.mode === 'off' ? httpGet : httpsGet;
const port = config.port === 0 ? 8080 : config.port;
const request = get({ host: '127.0.0.1', port, path: '/healthz', timeout: 2000, rejectUnauthorized: false }, (res) => {
  res.resume();
  process.exitCode = res.statusCode === 200 ? 0 : 1;
});
request.on('timeout', () => request.destroy(new Error('timed out')));
request.on('error', () => {
  process.exitCode = 1;
});
