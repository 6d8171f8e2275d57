/**
 * What travels between the parts of a relay, on the store's event bus (in-process with the
 * embedded store, Redis pub/sub with replicas). Everything here is plain JSON.
 *
 *   sender (the dispatcher's replica)          replica holding the CLI's stream        CLI
 *     publish relay:<relayId> ─────────────────► push the request down the stream ───► forward
 *     wait on relay-reply:<relayId>:<requestId> ◄── publish { type: 'accepted' }
 *                                              ◄── POST /sandbox/relays/{id}/replies/{requestId} (any replica) ◄── answer
 */

/** A webhook on its way to the CLI: what to send to the local URL. */
export interface RelayRequest {
  requestId: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** The exact body text, or null for none. */
  body: string | null;
  /** How long the sandbox waits for the answer; the CLI gives up on the local URL a little earlier. */
  timeoutMs: number;
}

/** The local URL's answer, or why there is none, as the CLI reports it. */
export type RelayAnswer =
  { type: 'answer'; status: number; headers: Record<string, string>; body: string } | { type: 'error'; error: string };

/** What comes back on a request's reply channel. */
export type RelayReply = { type: 'accepted' } | RelayAnswer;

/** The outcome of forwarding one request, for the sender or the HTTP endpoint. */
export type RelayOutcome = RelayAnswer | { type: 'not_connected' } | { type: 'timeout' };

export const requestChannel = (relayId: string): string => `relay:${relayId}`;
export const replyChannel = (relayId: string, requestId: string): string => `relay-reply:${relayId}:${requestId}`;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isStringRecord = (value: unknown): value is Record<string, string> =>
  isObject(value) && Object.values(value).every((v) => typeof v === 'string');

/** A bus message is only trusted as far as its shape: another version of the sandbox may share the bus. */
export function isRelayRequest(message: unknown): message is RelayRequest {
  return (
    isObject(message) &&
    typeof message['requestId'] === 'string' &&
    (message['method'] === 'GET' || message['method'] === 'POST') &&
    isStringRecord(message['headers']) &&
    (message['body'] === null || typeof message['body'] === 'string') &&
    typeof message['timeoutMs'] === 'number'
  );
}

export function isRelayReply(message: unknown): message is RelayReply {
  if (!isObject(message)) return false;
  if (message['type'] === 'accepted') return true;
  if (message['type'] === 'error') return typeof message['error'] === 'string';
  return (
    message['type'] === 'answer' &&
    typeof message['status'] === 'number' &&
    isStringRecord(message['headers']) &&
    typeof message['body'] === 'string'
  );
}
