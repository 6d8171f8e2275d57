import { fetchSender, type WebhookSender } from '../../src/webhooks/sender.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** What the sender records instead of contacting a host that is not on this machine. */
export const NOT_CONTACTED = 'not contacted: the test suite only sends to loopback receivers';

/**
 * The real sender for loopback targets; any other host is answered as unreachable without a
 * DNS lookup or a connection, so tests that use example endpoints never send traffic off the machine.
 */
export const loopbackOnlySender: WebhookSender = {
  async send(request) {
    if (LOOPBACK_HOSTS.has(new URL(request.url).hostname)) return fetchSender.send(request);
    return { statusCode: null, latencyMs: 0, error: NOT_CONTACTED, responseExcerpt: null, bodyIsJson: false };
  },
};
