-- ARGV[3]: the document; ARGV[4]: {name, origin, createdAt, createdAtMs, offsetMs, frozenAtMs, runDueMs, entries, entriesJson, deliveries};
-- ARGV[5]: the most accounts the store may hold ('' for no bound), answered {'full'} when it holds that many.

local id = ARGV[2]
local a = acct(id)
if redis.call('EXISTS', a) == 1 then return {'exists'} end
if ARGV[5] ~= '' and redis.call('ZCARD', P .. 'accounts') >= tonumber(ARGV[5]) then return {'full'} end
local m = cjson.decode(ARGV[4])
local c = conflictOf(id, m.entries)
if c then return c end
redis.call('HSET', a, 'doc', ARGV[3], 'v', '1', 'name', m.name, 'origin', m.origin, 'createdAt', m.createdAt,
  'lastSeenMs', '', 'offsetMs', m.offsetMs, 'frozenAtMs', m.frozenAtMs, 'runDueMs', m.runDueMs, 'entries', m.entriesJson, 'dseq', '0')
for _, e in ipairs(m.entries) do redis.call('HSET', P .. 'idx:' .. e[1], e[2], id) end
redis.call('ZADD', P .. 'accounts', 0, m.createdAt .. '/' .. id)
if m.origin == 'generated' then redis.call('ZADD', P .. 'idle', m.createdAtMs, id) end
for _, d in ipairs(m.deliveries) do addDelivery(id, d) end
refreshDue(id)
return {'ok'}
