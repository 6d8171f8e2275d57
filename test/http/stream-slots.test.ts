import fc from 'fast-check';

import { LimitError } from '../../src/core/errors.js';
import { StreamSlots } from '../../src/http/event-stream.js';

// MAX_OPEN_STREAMS_TOTAL shared fairly: when every slot is held, a holder with fewer streams
// takes the slot of the biggest holder's oldest stream (which ends), while that holder has at
// least two more; so a newcomer's first stream always finds a place while anyone holds two.

interface Opened {
  holder: string;
  ended: boolean;
  giveBack: () => void;
}

function open(slots: StreamSlots, holder: string, streams: Opened[]): Opened | LimitError {
  const stream: Opened = { holder, ended: false, giveBack: () => undefined };
  try {
    stream.giveBack = slots.take(holder, () => {
      stream.ended = true;
      // As a real stream does: ending gives its slot back (a no-op once taken back).
      stream.giveBack();
    });
  } catch (error) {
    if (error instanceof LimitError) return error;
    throw error;
  }
  streams.push(stream);
  return stream;
}

describe('StreamSlots', () => {
  it("when full, ends the biggest holder's oldest stream for a newcomer's first one, and tells who gave it up", () => {
    const takenBack: [string, string][] = [];
    const slots = new StreamSlots(4, (from, to) => takenBack.push([from, to]));
    const streams: Opened[] = [];
    for (let i = 0; i < 3; i++) open(slots, 'grabber', streams);
    open(slots, 'other', streams);
    expect(slots.open).toBe(4);

    const first = open(slots, 'newcomer', streams);
    expect(first).not.toBeInstanceOf(LimitError);
    expect(streams.filter((s) => s.ended)).toEqual([streams[0]]);
    expect(takenBack).toEqual([['grabber', 'newcomer']]);
    expect([slots.open, slots.heldBy('grabber'), slots.heldBy('newcomer')]).toEqual([4, 2, 1]);
    // The ended stream's own give-back changes nothing more.
    streams[0]!.giveBack();
    expect(slots.open).toBe(4);
  });

  it('refuses, naming the setting, when nobody holds two more than the one asking: slots never move back and forth', () => {
    const slots = new StreamSlots(4);
    const streams: Opened[] = [];
    for (const holder of ['a', 'a', 'b', 'c']) open(slots, holder, streams);
    // 'a' holds 2, 'd' none: 'd' gets a's oldest.
    expect(open(slots, 'd', streams)).not.toBeInstanceOf(LimitError);
    // Now everyone holds one: 'a' asking again (it holds 1) takes nobody's.
    const refused = open(slots, 'a', streams);
    expect(refused).toBeInstanceOf(LimitError);
    expect((refused as LimitError).limit).toBe('MAX_OPEN_STREAMS_TOTAL');
    expect((refused as LimitError).status).toBe(409);
    expect((refused as LimitError).message).toContain('(MAX_OPEN_STREAMS_TOTAL=4)');
    // A fifth account's first stream cannot find a place either: four accounts hold one each.
    expect(open(slots, 'e', streams)).toBeInstanceOf(LimitError);
  });

  it('a slot given back is free for anyone, with no stream ended', () => {
    const slots = new StreamSlots(1);
    const streams: Opened[] = [];
    const held = open(slots, 'a', streams) as Opened;
    held.giveBack();
    held.giveBack();
    expect(slots.open).toBe(0);
    expect(open(slots, 'b', streams)).not.toBeInstanceOf(LimitError);
    expect(held.ended).toBe(false);
  });

  it('over any sequence of opens and closes: never more than max open, and a holder with none always gets one while another holds two', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(fc.boolean(), fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.nat()), { maxLength: 60 }),
        (max, steps) => {
          const slots = new StreamSlots(max);
          const streams: Opened[] = [];
          for (const [opening, holder, pick] of steps) {
            const live = streams.filter((s) => !s.ended);
            if (!opening && live.length > 0) {
              const closing = live[pick % live.length]!;
              closing.ended = true;
              closing.giveBack();
            } else {
              const counts = new Map<string, number>();
              for (const s of live) counts.set(s.holder, (counts.get(s.holder) ?? 0) + 1);
              const mine = counts.get(holder) ?? 0;
              const someoneAhead = [...counts.values()].some((n) => n >= mine + 2);
              const outcome = open(slots, holder, streams);
              if (live.length < max || someoneAhead) expect(outcome).not.toBeInstanceOf(LimitError);
              else expect(outcome).toBeInstanceOf(LimitError);
            }
            expect(slots.open).toBe(streams.filter((s) => !s.ended).length);
            expect(slots.open).toBeLessThanOrEqual(max);
          }
        },
      ),
    );
  });
});
