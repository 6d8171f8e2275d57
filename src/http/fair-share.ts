import type { ServerResponse } from 'node:http';

import type { Request, RequestHandler } from 'express';

import { rateLimited } from '../core/errors.js';
import { clientAddressKey } from './client-address.js';

/**
 * MAX_CONCURRENT_REQUESTS and MAX_QUEUED_REQUESTS: how many requests of one client a replica
 * works on at once, and how many more wait their turn. A client is its address (an IPv6 /64 as
 * one) and, separately, the credential it sends, so neither fresh addresses nor fresh accounts
 * buy a larger share. `concurrent` 0 turns the gate off (a local sandbox's default).
 */
export interface FairShareLimits {
  concurrent: number;
  queued: number;
}

/** The setting a 429 of the gate is counted under (`sandbox_limited_requests_total{rule}`); its message names both. */
const QUEUE_SETTING = 'MAX_QUEUED_REQUESTS';

/** One client's requests: those being worked on, and those waiting (each a start function). */
interface Lane {
  active: number;
  readonly waiting: (() => void)[];
}

/** A request's hold on its lanes, released once: when its answer ends, or when it becomes an event stream. */
const holds = new WeakMap<ServerResponse, () => void>();

/**
 * A long-lived answer (an event stream, bounded on its own by MAX_OPEN_STREAMS) gives back its
 * turn once its headers are out, so that it does not hold its client's share for as long as it
 * stays open.
 */
export function leaveFairShare(res: ServerResponse): void {
  holds.get(res)?.();
}

/**
 * What sets a request's lanes apart besides its client: a request that another request of the
 * same client waits for (a listener's answer to a relay call) must not wait behind it, so it
 * takes turns in lanes of its own kind. '' for every other request.
 */
export type LaneKind = (req: Request) => string;

/** The lanes a request takes a turn in: its address's, and its credential's when it sends one. */
function clientKeys(req: Request, kind: string): string[] {
  const address = `${kind}address ${clientAddressKey(req)}`;
  const credential = req.headers.authorization;
  return credential ? [address, `${kind}credential ${credential}`] : [address];
}

/**
 * Fair shares of one process among its clients: one client's flood of requests (each cheap or
 * not) waits in its own queue instead of filling the event loop ahead of every other client's
 * requests, so another partner's request waits behind at most `concurrent` of the flood's.
 * Past its queue a client gets 429 with Retry-After. Lanes exist only while a request of their
 * client is in flight or waiting, so their number is bounded by the requests the process holds.
 * Null when `limits.concurrent` is 0: no gate, and no step on the way of a request.
 */
export function fairShare(
  limits: FairShareLimits,
  { laneKind = () => '', onWaiting = () => {} }: { laneKind?: LaneKind; onWaiting?: (change: 1 | -1) => void } = {},
): RequestHandler | null {
  if (limits.concurrent === 0) return null;
  const lanes = new Map<string, Lane>();

  const laneOf = (key: string): Lane => {
    let lane = lanes.get(key);
    if (lane === undefined) {
      lane = { active: 0, waiting: [] };
      lanes.set(key, lane);
    }
    return lane;
  };
  const dropIfIdle = (key: string, lane: Lane): void => {
    if (lane.active === 0 && lane.waiting.length === 0) lanes.delete(key);
  };

  return (req, res, next) => {
    const keys = clientKeys(req, laneKind(req));
    const held: [string, Lane][] = [];
    let waitingIn: { lane: Lane; proceed: () => void; key: string } | null = null;
    let done = false;

    const release = (): void => {
      if (done) return;
      done = true;
      if (waitingIn !== null) {
        const { lane, proceed, key } = waitingIn;
        lane.waiting.splice(lane.waiting.indexOf(proceed), 1);
        onWaiting(-1);
        dropIfIdle(key, lane);
      }
      for (const [key, lane] of held) {
        lane.active--;
        const following = lane.waiting.shift();
        if (following !== undefined) following();
        else dropIfIdle(key, lane);
      }
    };
    holds.set(res, release);
    res.once('close', release);

    // Takes a turn in each lane in order (address, then credential: always the same order, so no two requests wait on each other).
    const takeTurn = (index: number): void => {
      const key = keys[index];
      if (key === undefined) {
        next();
        return;
      }
      const lane = laneOf(key);
      const proceed = (): void => {
        if (waitingIn !== null) onWaiting(-1);
        waitingIn = null;
        lane.active++;
        held.push([key, lane]);
        takeTurn(index + 1);
      };
      if (lane.active < limits.concurrent) {
        proceed();
        return;
      }
      // SANDBOX: a hosted sandbox's own protection of the partners who share it; production's limits are its own.
      if (lane.waiting.length >= limits.queued) {
        release();
        next(
          rateLimited(
            QUEUE_SETTING,
            `Too many requests of this client at once: ${limits.concurrent} are worked on and ${limits.queued} wait (MAX_CONCURRENT_REQUESTS, MAX_QUEUED_REQUESTS); wait for answers before sending more`,
            1,
          ),
        );
        return;
      }
      // Called with a turn a finished request hands over (its count went down first); a request that
      // gives up while it waits leaves the queue (release), so it is never called after that.
      waitingIn = { lane, proceed, key };
      lane.waiting.push(proceed);
      onWaiting(1);
    };
    takeTurn(0);
  };
}
