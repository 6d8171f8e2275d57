import type { Request, Response, Router } from 'express';

import { AppError, capReached, invalidParameter } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { openEventStream, type StreamSlots } from '../http/event-stream.js';
import { operationRouter } from '../http/operation.js';
import { authOf } from '../http/request-context.js';
import { DEFAULT_RELAY_NAME, RELAY_KEY_HEADER, type RelayHub } from './hub.js';
import type { RelayRequest } from './messages.js';
import { callRelayGetOp, callRelayPostOp, openRelayOp, relayReplyOp, relayRequestsOp } from './operations.js';
import { describeMissingAnswer } from './sender.js';

export interface RelayRoutesDeps {
  relays: RelayHub;
  /** MAX_OPEN_STREAMS_TOTAL, shared with the dashboard's streams. */
  streamSlots: StreamSlots;
  logger: Logger;
  config: {
    readonly webhook: { readonly timeoutMs: number };
    readonly limits: { readonly openRelays: number; readonly streamBufferBytes: number };
  };
}

/** A comment line down an idle stream this often, so proxies keep it open and the CLI notices a dead one. */
export const RELAY_PING_MS = 15_000;

const REQUEST_ID = /^[0-9a-f-]{36}$/;
/** Headers that belong to one hop, or that the relay itself sets, and are never passed on. */
const HOP_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
  'authorization',
  'cookie',
  'expect',
  RELAY_KEY_HEADER.toLowerCase(),
]);

/**
 * The relay, when it is one of the account's and the request carries its key (X-Relay-Key):
 * a relay belongs to the connection that opened it, not to every holder of the account's
 * credentials. Another account's relay answers like one that does not exist.
 */
function ownedRelay(deps: RelayRoutesDeps, accountId: string, relayId: string, req: Request): string {
  if (deps.relays.isRetired(relayId))
    throw new AppError(
      404,
      'relay_not_found',
      `Relay ${JSON.stringify(relayId)} was made by an earlier version of this sandbox and is no longer served: open a new one (water-sandbox listen does) and subscribe its endpoint`,
    );
  if (!deps.relays.owns(accountId, relayId))
    throw new AppError(
      404,
      'relay_not_found',
      `No relay ${JSON.stringify(relayId)} in this account; POST /sandbox/relays opens one`,
    );
  if (!deps.relays.keyMatches(relayId, req.get(RELAY_KEY_HEADER)))
    throw new AppError(
      403,
      'relay_key_invalid',
      `${req.get(RELAY_KEY_HEADER) === undefined ? `${RELAY_KEY_HEADER} is missing` : `${RELAY_KEY_HEADER} is not this relay's key`}: a relay belongs to the connection that opened it (its relayKey came with POST /sandbox/relays); open a relay of your own`,
      // Every 403 of an account's routes says how it authenticates.
      { headers: { 'WWW-Authenticate': 'Bearer realm="water-sandbox"' } },
    );
  return relayId;
}

/** relayReplyOp's path, each {parameter} a segment. */
const RELAY_REPLY_PATH = new RegExp(`^${relayReplyOp.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);

/**
 * Whether a request is a listener's answer to a relay call (relayReplyOp), which the call waits
 * for: it takes turns apart from its client's other requests (fairShare's lane kind).
 */
export const answersARelayCall = (req: Request): boolean =>
  req.method === relayReplyOp.method.toUpperCase() && RELAY_REPLY_PATH.test(req.path);

/** /sandbox/relays: what `water-sandbox listen` uses (mounted behind account authentication). */
export function relaySandboxRouter(deps: RelayRoutesDeps): Router {
  const api = operationRouter('/sandbox');

  api.handle(openRelayOp, ({ body }, _req, res) => {
    const { accountId } = authOf(res);
    const name = body()?.name ?? DEFAULT_RELAY_NAME;
    const { relayId, relayKey } = deps.relays.open(accountId, name);
    res.json({ relayId, name, endpoint: deps.relays.endpointOf(relayId), relayKey });
  });

  // The relay's requests as server-sent events: `ready` once attached, then one `request` per webhook.
  api.handle(relayRequestsOp, async ({ params }, req, res) => {
    const { accountId } = authOf(res);
    const relayId = ownedRelay(deps, accountId, params.relayId, req);
    // A stream holds a subscription to the event bus and a connection for as long as it is open.
    const cap = deps.config.limits.openRelays;
    if (cap > 0 && deps.relays.openStreams(accountId) >= cap) {
      throw capReached(
        'MAX_OPEN_RELAYS',
        `This account has ${cap} water-sandbox listen streams open on this sandbox, the most it allows (MAX_OPEN_RELAYS=${cap}); stop one before starting another`,
      );
    }
    // Ends this stream should its slot go to another account's (see StreamSlots); set once the stream exists.
    let endTakenBack = (): void => undefined;
    const giveBack = deps.streamSlots.take(accountId, () => endTakenBack());
    // Counted from here until the connection closes, whenever that is.
    let untrack = (): void => undefined;
    let detach: (() => Promise<void>) | null = null;
    let ping: NodeJS.Timeout | undefined;
    const stream = openEventStream(res, {
      maxBufferedBytes: deps.config.limits.streamBufferBytes,
      headers: { 'Cache-Control': 'no-store, no-transform' },
      onClose: () => {
        clearInterval(ping);
        ping = undefined;
        untrack();
        giveBack();
        if (detach) void detach();
      },
      // A listener that stops reading while webhooks arrive would hold them all in memory.
      onStalled: (bufferedBytes) =>
        deps.logger.warn('event stream closed: its client does not read', {
          stream: 'relay',
          accountId,
          relayId,
          bufferedBytes,
          limit: 'STREAM_BUFFER_LIMIT',
        }),
    });
    endTakenBack = () => stream.end();
    untrack = deps.relays.track(accountId, () => stream.end());
    const send = (event: string, data: unknown): void =>
      void stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    const attached = await deps.relays.attach(relayId, (request: RelayRequest) => send('request', request));
    if (stream.closed) {
      void attached();
      return;
    }
    detach = attached;
    ping = setInterval(() => stream.write(': ping\n\n'), RELAY_PING_MS).unref();
    send('ready', { relayId, endpoint: deps.relays.endpointOf(relayId) });
  });

  api.handle(relayReplyOp, async ({ params, body }, req, res) => {
    const { accountId } = authOf(res);
    const relayId = ownedRelay(deps, accountId, params.relayId, req);
    const { requestId } = params;
    if (!REQUEST_ID.test(requestId))
      throw invalidParameter(
        'requestId',
        `requestId must be the id of a request the relay stream sent; got ${JSON.stringify(requestId)}`,
      );
    const reply = body();
    await deps.relays.answer(
      relayId,
      requestId,
      reply.error !== undefined
        ? { type: 'error', error: reply.error }
        : { type: 'answer', status: reply.status ?? 200, headers: reply.headers ?? {}, body: reply.body ?? '' },
    );
    res.status(202).json({ status: 'accepted' });
  });

  return api.done();
}

/** A gateway error whose message is meant for the caller (AppErrors of 5xx hide theirs). */
class RelayGatewayError extends AppError {
  override get expose(): boolean {
    return true;
  }
}

function forwardedHeaders(req: Request): Record<string, string> {
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
  const api = operationRouter('/relay');
  const handle = async ({ params }: { params: { relayId: string } }, req: Request, res: Response): Promise<void> => {
    const { accountId } = authOf(res);
    const relayId = ownedRelay(deps, accountId, params.relayId, req);
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
    if (outcome.type === 'error')
      throw new RelayGatewayError(
        502,
        'relay_forward_failed',
        `water-sandbox listen could not reach its local URL: ${outcome.error}`,
      );
    const message = describeMissingAnswer(outcome, relayId, timeoutMs);
    throw new RelayGatewayError(
      outcome.type === 'timeout' ? 504 : 502,
      outcome.type === 'timeout' ? 'relay_timeout' : 'relay_not_connected',
      message,
    );
  };
  api.handle(callRelayGetOp, handle);
  api.handle(callRelayPostOp, handle);
  return api.done();
}
