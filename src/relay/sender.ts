import { performance } from 'node:perf_hooks';

import {
  describeAnswerBody,
  headersOf,
  hideSecrets,
  type WebhookResponse,
  type WebhookSender,
} from '../webhooks/index.js';
import type { RelayHub } from './hub.js';
import type { RelayOutcome } from './messages.js';

/** Why a relay had no answer, in the words of the delivery log. */
export function describeMissingAnswer(
  outcome: RelayOutcome & { type: 'not_connected' | 'timeout' },
  relayId: string,
  timeoutMs: number,
): string {
  return outcome.type === 'not_connected'
    ? `relay ${relayId} is not connected: no water-sandbox listen holds it (run water-sandbox listen --forward-to <url>)`
    : `timed out after ${timeoutMs} ms waiting for water-sandbox listen's answer`;
}

/**
 * The dispatcher's sender, aware of relays: a webhook to one of this sandbox's relay endpoints
 * goes to the `listen` connection over the event bus, and the answer of the partner's local
 * URL is the attempt's answer; everything else goes through `inner` (fetch). A relay of
 * another account is answered like an endpoint that does not exist.
 */
export function relayAwareSender(hub: RelayHub, inner: WebhookSender): WebhookSender {
  return {
    async send(request): Promise<WebhookResponse> {
      const relayId = hub.relayIdOfUrl(request.url);
      if (relayId === null) return inner.send(request);
      const started = performance.now();
      const failed = (error: string): WebhookResponse => ({
        statusCode: null,
        latencyMs: Math.round(performance.now() - started),
        // What the listener said about its local URL is stored like an answer.
        error: hideSecrets(error, request.hide),
        responseExcerpt: null,
        bodyIsJson: false,
      });
      if (hub.isRetired(relayId))
        return failed(
          `relay ${relayId} was made by an earlier version of this sandbox and is no longer served: run water-sandbox listen again and subscribe its new endpoint`,
        );
      if (request.accountId === undefined || !hub.owns(request.accountId, relayId)) {
        return failed(`relay ${relayId} is not a relay of this account`);
      }
      const outcome = await hub.forward(relayId, {
        method: request.method,
        headers: headersOf(request),
        body: request.body === undefined ? null : JSON.stringify(request.body),
        timeoutMs: request.timeoutMs,
      });
      if (outcome.type === 'answer') {
        return {
          statusCode: outcome.status,
          latencyMs: Math.round(performance.now() - started),
          error: null,
          ...describeAnswerBody(outcome.body, request.hide),
        };
      }
      if (outcome.type === 'error') return failed(outcome.error);
      return failed(describeMissingAnswer(outcome, relayId, request.timeoutMs));
    },
  };
}
