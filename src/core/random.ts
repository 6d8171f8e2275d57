/**
 * Seeded, order-independent randomness. `hashUnit(seed, ...parts)` is a pure function of its
 * inputs, so a value never depends on how many other values were drawn before it
 * (the flaw of global seeded generators). `createStream` is a classic PRNG stream for the
 * few places where values are consumed in a fixed order.
 */

/** 32-bit FNV-1a over the parts, then murmur3's finaliser for good bit mixing. */
export function hash32(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const text = typeof part === 'number' ? part.toString(36) : part;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0x1f; // separator, so ("ab","c") differs from ("a","bc")
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** murmur3's 32-bit finaliser: spreads every input bit over the whole output. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform number in [0, 1) determined by the parts. */
export const hashUnit = (...parts: (string | number)[]): number => hash32(...parts) / 0x100000000;

/** mulberry32: a small PRNG stream in [0, 1). */
export function createStream(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x100000000;
  };
}
