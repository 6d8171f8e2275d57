import { DeliverySlots } from '../../src/webhooks/slots.js';

/** Takes slots for the account on distinct origins while it may. */
function fill(slots: DeliverySlots, accountId: string): number {
  let taken = 0;
  while (slots.fits(accountId, `https://${accountId}-${taken}.example`)) {
    slots.take(accountId, `https://${accountId}-${taken}.example`);
    taken++;
  }
  return taken;
}

describe('DeliverySlots: how the slots are shared', () => {
  it('one account alone holds three quarters of them; each account arriving later finds some free', () => {
    const slots = new DeliverySlots(64);
    expect(fill(slots, 'a')).toBe(48);
    expect(slots.accountShareFull('a')).toBe(true);
    expect(fill(slots, 'b')).toBe(12);
    expect(fill(slots, 'c')).toBe(3);
    expect(fill(slots, 'd')).toBe(1);
    expect(slots.inUse).toBe(64);
    // Every slot is in use now: that, not the account's share, stops the next one.
    expect(slots.freeFor('e')).toBe(0);
    expect(slots.accountShareFull('e')).toBe(false);
  });

  it('an origin holds at most a quarter of all the slots, whichever accounts send to it', () => {
    const slots = new DeliverySlots(8);
    const origin = 'https://slow.example';
    expect(slots.originLimit).toBe(2);
    slots.take('a', origin);
    slots.take('b', origin);
    expect(slots.fits('a', origin)).toBe(false);
    expect(slots.fits('c', origin)).toBe(false);
    expect(slots.fits('a', 'https://healthy.example')).toBe(true);
    expect(slots.fullOrigins()).toEqual([origin]);
  });

  it("gives slots back, wakes whoever waits for one, and the account's share grows again", async () => {
    const slots = new DeliverySlots(8);
    expect(fill(slots, 'a')).toBe(6);
    expect(slots.fits('a', 'https://another.example')).toBe(false);
    const freed = slots.whenFreed();
    slots.give('a', 'https://a-0.example');
    await freed;
    expect(slots.heldBy('a')).toBe(5);
    expect(slots.fits('a', 'https://another.example')).toBe(true);
    expect(slots.fullOrigins()).toEqual([]);
  });

  it('with a single slot, the one account that asks gets it', () => {
    const slots = new DeliverySlots(1);
    expect(slots.originLimit).toBe(1);
    expect(fill(slots, 'a')).toBe(1);
    expect(fill(slots, 'b')).toBe(0);
  });
});
