-- The compare-and-set of AccountStore.update. ARGV[3]: the version the change was made on;
-- ARGV[4]: the new document; ARGV[5]: {name, offsetMs, frozenAtMs, runDueMs, entriesJson ('' when
-- the keys did not change), added, removed, deliveries}. Answers {'ok', version}, {'stale', version,
-- doc} (another change came first: redo the change on the document sent back), {'missing'} or
-- {'conflict', kind, key}.

local id = ARGV[2]
local a = acct(id)
local v = redis.call('HGET', a, 'v')
if not v then return {'missing'} end
if v ~= ARGV[3] then return {'stale', v, redis.call('HGET', a, 'doc')} end
local m = cjson.decode(ARGV[5])
local c = conflictOf(id, m.added)
if c then return c end
for _, e in ipairs(m.removed) do
  local index = P .. 'idx:' .. e[1]
  if redis.call('HGET', index, e[2]) == id then redis.call('HDEL', index, e[2]) end
end
for _, e in ipairs(m.added) do redis.call('HSET', P .. 'idx:' .. e[1], e[2], id) end
local version = redis.call('HINCRBY', a, 'v', 1)
redis.call('HSET', a, 'doc', ARGV[4], 'name', m.name, 'offsetMs', m.offsetMs, 'frozenAtMs', m.frozenAtMs, 'runDueMs', m.runDueMs)
if m.entriesJson ~= '' then redis.call('HSET', a, 'entries', m.entriesJson) end
for _, d in ipairs(m.deliveries) do addDelivery(id, d) end
refreshDue(id)
return {'ok', tostring(version)}
