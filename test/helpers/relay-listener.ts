import type { Express } from 'express';
import request from 'supertest';

import { readServerEvents, type ServerEvent } from '../../src/client/sse.js';
import { bearer, DEMO_API_KEY } from './demo.js';
import { eventually } from './waiting.js';

const aborts: AbortController[] = [];
/** The key of each relay a test opened, by relay id (only the opener holds it). */
const keys = new Map<string, string>();

/** A relay of the account of `key`, as `POST /sandbox/relays` answers it. */
export async function openRelay(
  t: { app: Express },
  key = DEMO_API_KEY,
  body: object = {},
): Promise<{ relayId: string; name: string; endpoint: string; relayKey: string }> {
  const response = await request(t.app).post('/sandbox/relays').set(bearer(key)).send(body).expect(200);
  const relay = response.body as { relayId: string; name: string; endpoint: string; relayKey: string };
  keys.set(relay.relayId, relay.relayKey);
  return relay;
}

/** The X-Relay-Key header of a relay the test opened (an empty object for one it did not). */
export function relayKeyOf(relayId: string): Record<string, string> {
  const key = keys.get(relayId);
  return key === undefined ? {} : { 'X-Relay-Key': key };
}

/** A listener as the CLI holds it: the event stream, read in the background (ended by `detachListeners`). */
export async function attach(
  base: string,
  relayId: string,
  key = DEMO_API_KEY,
  relayKey: Record<string, string> = relayKeyOf(relayId),
): Promise<{
  response: Response;
  events: ServerEvent[];
  next: (event: string) => Promise<ServerEvent>;
  ended: Promise<void>;
}> {
  const abort = new AbortController();
  aborts.push(abort);
  const response = await fetch(`${base}/sandbox/relays/${relayId}/requests`, {
    headers: { ...bearer(key), ...relayKey, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  const events: ServerEvent[] = [];
  const ended =
    response.status === 200
      ? readServerEvents(
          response.body!,
          (e) => events.push(e),
          () => undefined,
        ).catch(() => undefined)
      : Promise.resolve();
  let seen = 0;
  const next = async (event: string): Promise<ServerEvent> => {
    const found = await eventually(() => events.slice(seen).find((e) => e.event === event) ?? null);
    seen = events.indexOf(found) + 1;
    return found;
  };
  return { response, events, next, ended };
}

/** Ends every listener `attach` started (an afterEach). */
export function detachListeners(): void {
  for (const abort of aborts.splice(0)) abort.abort();
}
