import { hash32 } from '../../core/random.js';

/** 4096 bits: an absent key is taken for present about once in 40,000 with 75 keys in its shard (300,000 in all), once in 240 with 300. */
const BITS = 4096;
const HASHES = 4;

/**
 * Which keys a shard of the index may hold (a Bloom filter): "no" is certain, "maybe" is to be
 * read. Kept for every key shard read once (512 bytes each, so at most 2 MB for all of them,
 * whatever the number of keys), so a new key whose shard is not in memory is known free without
 * reading the shard. A key taken out is not taken out of the filter (it may say "maybe" for it);
 * the filter is made anew from the shard each time the shard is read.
 */
export class KeyFilter {
  readonly #words = new Uint32Array(BITS / 32);

  static of(keys: Iterable<string>): KeyFilter {
    const filter = new KeyFilter();
    for (const key of keys) filter.add(key);
    return filter;
  }

  add(key: string): void {
    const [h1, h2] = hashesOf(key);
    for (let i = 0; i < HASHES; i++) {
      const bit = ((h1 + Math.imul(i, h2)) >>> 0) % BITS;
      this.#words[bit >>> 5] = (this.#words[bit >>> 5] ?? 0) | (1 << (bit & 31));
    }
  }

  mayHave(key: string): boolean {
    const [h1, h2] = hashesOf(key);
    for (let i = 0; i < HASHES; i++) {
      const bit = ((h1 + Math.imul(i, h2)) >>> 0) % BITS;
      if (((this.#words[bit >>> 5] ?? 0) & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/** Two hashes of their own (the shard's number is hash32 of the key alone: every key of a shard shares it). */
function hashesOf(key: string): [number, number] {
  return [hash32('filter', key) >>> 0, (hash32(key, 'filter') | 1) >>> 0];
}
