import type { AccountDoc, DeepReadonly } from '../store/data.js';
import { findLocation } from '../store/lookups.js';
import { presentLocation } from './presenter.js';

const answers = new WeakMap<DeepReadonly<AccountDoc>, Map<string, Buffer>>();

/**
 * GET /v1/locations/{id}'s body, as the UTF-8 bytes of its JSON: a 404 for a location the
 * account does not have. A location's answer is a function of the account's document alone, and
 * both stores hand out documents frozen and replace them whole on every change, so a frozen
 * document's answers are kept with it (the same location asked for again costs a lookup, not a
 * presentation, a JSON.stringify and an encoding: docs/benchmarks.md, round three) and go with it.
 * A document that is not frozen is presented afresh each time.
 */
export function locationAnswer(doc: DeepReadonly<AccountDoc>, locationId: string): Buffer {
  const kept = answers.get(doc)?.get(locationId);
  if (kept !== undefined) return kept;
  const body = Buffer.from(JSON.stringify(presentLocation(doc, findLocation(doc, locationId))));
  if (Object.isFrozen(doc)) {
    let byLocation = answers.get(doc);
    if (byLocation === undefined) answers.set(doc, (byLocation = new Map<string, Buffer>()));
    byLocation.set(locationId, body);
  }
  return body;
}
