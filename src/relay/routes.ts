import { Router, type Request, type Response } from 'express';
import { z } from 'zod';

import { AppError, invalidParameter, notFound } from '../core/errors.js';
import { authOf } from '../http/request-context.js';
import { allowOnly } from '../http/routing.js';
import { DEFAULT_RELAY_NAME, RELAY_NAME, type RelayHub } from './hub.js';
import type { RelayRequest } from './messages.js';
import { describeMissingAnswer } from './sender.js';

export interface RelayRoutesDeps {
  relays: RelayHub;
  config: { readonly webhook: { readonly timeoutMs: number } };
}

/** A comment line down an idle stream this often, so proxies keep it open and the CLI notices a dead one. */
export const RELAY_PING_MS = 15_000;
/** Bodies of the local answer kept (the delivery log keeps the first 500 characters). */
export const MAX_ANSWER_BODY_CHARS = 32_768;

/** POST /sandbox/relays: which relay (by name) to open. */
export const openRelayBody = z.strictObject({ name: z.string().regex(RELAY_NAME, 'name is 1 to 40 lowercase letters, digits and dashes, starting with a letter or digit').optional() });

/** POST /sandbox/relays/{relayId}/replies/{requestId}: the local URL's answer, or why there is none. */
export const relayReplyBody = z.union([
  z.strictObject({
    status: z.number().int().min(100).max(599),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.string().max(MAX_ANSWER_BODY_CHARS).optional(),
  }),
  z.strictObject({ error: z.string().min(1).max(1000) }),
]);

const REQUEST_ID = /^[0-9a-f-]{36}$/;
/** Headers that belong to one hop, or that the relay itself sets, and are never passed on. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'te', 'trailer', 'proxy-authorization', 'proxy-connection', 'authorization', 'cookie', 'expect']);

function parseBody<T>(schema: z.ZodType<T>, body: unknown, example: string): T {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.join('.') || 'body';
  throw invalidParameter(path, `${issue?.message ?? 'invalid body'} (${path}); e.g. ${example}`);
}

function ownedRelay(deps: RelayRoutesDeps, accountId: string, relayId: string): string {
  // Another account's relay answers like one that does not exist.
  if (!deps.relays.owns(accountId, relayId)) throw new AppError(404, 'relay_not_found', `No relay ${JSON.stringify(relayId)} in this account; POST /sandbox/relays gives the account's relay`);
  return relayId;
}

/** /sandbox/relays: what `water-sandbox listen` uses (mounted behind account authentication). */
export function relaySandboxRouter(deps: RelayRoutesDeps): Router {
  const router = Router({ strict: true });

  router.post('/relays', (req, res) => {
    const { accountId } = authOf(res);
    const name = parseBody(openRelayBody, req.body, '{"name": "default"}').name ?? DEFAULT_RELAY_NAME;
    const relayId = deps.relays.relayIdFor(accountId, name);
    res.json({ relayId, name, endpoint: deps.relays.endpointOf(relayId) });
  });
  allowOnly(router, '/relays', ['POST']);

  // The relay's requests as server-sent events: `ready` once attached, then one `request` per webhook.
  router.get('/relays/:relayId/requests', async (req, res) => {
    const { accountId } = authOf(res);
    const relayId = ownedRelay(deps, accountId, req.params.relayId);
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      // nginx and similar proxies pass the stream on as it comes.
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    const send = (event: string, data: unknown): void => void res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    const detach = await deps.relays.attach(relayId, (request: RelayRequest) => send('request', request));
    const ping = setInterval(() => res.write(': ping\n\n'), RELAY_PING_MS).unref();
    const untrack = deps.relays.track(() => res.end());
    res.on('close', () => {
      clearInterval(ping);
      untrack();
      void detach();
    });
    send('ready', { relayId, endpoint: deps.relays.endpointOf(relayId) });
  });
  allowOnly(router, '/relays/:relayId/requests', ['GET']);

  router.post('/relays/:relayId/replies/:requestId', async (req, res) => {
    const { accountId } = authOf(res);
    const relayId = ownedRelay(deps, accountId, req.params.relayId);
    const { requestId } = req.params;
    if (!REQUEST_ID.test(requestId)) throw invalidParameter('requestId', `requestId must be the id of a request the relay stream sent; got ${JSON.stringify(requestId)}`);
    const reply = parseBody(relayReplyBody, req.body, '{"status": 200, "headers": {"content-type": "application/json"}, "body": "{}"} or {"error": "ECONNREFUSED"}');
    await deps.relays.answer(
      relayId,
      requestId,
      'error' in reply ? { type: 'error', error: reply.error } : { type: 'answer', status: reply.status, headers: reply.headers ?? {}, body: reply.body ?? '' },
    );
    res.status(202).json({ status: 'accepted' });
  });
  allowOnly(router, '/relays/:relayId/replies/:requestId', ['POST']);

  return router;
}

/** A gateway error whose message is meant for the caller (AppErrors of 5xx hide theirs). */
class RelayGatewayError extends AppError {
  override get expose(): boolean {
    return true;
  }
}

function forwardedHeaders(req: Request<{ relayId: string }>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_HEADERS.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * `GET|POST /relay/{relayId}`: the relay endpoint as a URL anyone can call over HTTP with the
 * owning account's credentials (mounted behind account authentication). The sandbox's own
 * webhooks do not come this way (the sender hands them to the relay directly); this is for
 * trying a listener by hand. The Authorization header is not passed on.
 */
export function relayEndpointRouter(deps: RelayRoutesDeps): Router {
  const router = Router({ strict: true });
  const handle = async (req: Request<{ relayId: string }>, res: Response): Promise<void> => {
    const { accountId } = authOf(res);
    const { relayId } = req.params;
    if (!deps.relays.owns(accountId, relayId)) throw notFound(`No relay ${JSON.stringify(relayId)} in this account`);
    const timeoutMs = deps.config.webhook.timeoutMs;
    const outcome = await deps.relays.forward(relayId, {
      method: req.method === 'GET' ? 'GET' : 'POST',
      headers: forwardedHeaders(req),
      body: req.method === 'POST' && req.body !== undefined ? JSON.stringify(req.body) : null,
      timeoutMs,
    });
    if (outcome.type === 'answer') {
      const contentType = Object.entries(outcome.headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
      res.status(outcome.status);
      if (contentType !== undefined) res.set('Content-Type', contentType);
      res.send(outcome.body);
      return;
    }
    if (outcome.type === 'error') throw new RelayGatewayError(502, 'relay_forward_failed', `water-sandbox listen could not reach its local URL: ${outcome.error}`);
    const message = describeMissingAnswer(outcome, relayId, timeoutMs);
    throw new RelayGatewayError(outcome.type === 'timeout' ? 504 : 502, outcome.type === 'timeout' ? 'relay_timeout' : 'relay_not_connected', message);
  };
  router.get('/:relayId', handle);
  router.post('/:relayId', handle);
  allowOnly(router, '/:relayId', ['GET', 'POST']);
  return router;
}
