// Loaded into a sandbox with `node --import` (bench/heap.js): keeps BENCH_HELD_ACCOUNTS entries
// shaped as the embedded store's index keeps an account (src/store/embedded/account-index.ts: a
// summary object in its shard's record, its keys in one Map), for the life of the process, so a
// sandbox on `:memory:` carries the heap of that many accounts' index and nothing else of them.
const count = Number(process.env.BENCH_HELD_ACCOUNTS ?? 0);
const shards = Array.from({ length: 256 }, () => ({}));
const owners = new Map();
for (let i = 0; i < count; i++) {
  const accountId = `${i.toString(16).padStart(8, '0')}-4b1d-4c2e-9f3a-${(i * 7919).toString(16).padStart(12, '0')}`;
  const entries = [
    `apiKey:wsk_${accountId.replaceAll('-', '')}`,
    `email:user${i}@example.com`,
    `location:${accountId}`,
  ];
  shards[i % 256][accountId] = {
    name: `Bench account ${i}`,
    origin: 'generated',
    createdAt: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
    lastSeenMs: null,
    dueAtMs: null,
    entries,
  };
  for (const entry of entries) owners.set(entry, accountId);
}
globalThis.benchHeldIndex = { shards, owners };
