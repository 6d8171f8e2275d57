-- The compare-and-set of delivery changes: ARGV[3] the log limit, ARGV[4] [{id, old, json, meta,
-- state, due}], applied all or none, each only if the stored record is still `old`. A change ends
-- the delivery's claim; a delivery leaving the pending state trims the log.

local id = ARGV[2]
local limit = tonumber(ARGV[3])
local changes = cjson.decode(ARGV[4])
local records = P .. 'dlv:' .. id
for _, c in ipairs(changes) do
  if redis.call('HGET', records, c.id) ~= c.old then return {'stale'} end
end
for _, c in ipairs(changes) do
  redis.call('HSET', records, c.id, c.json)
  redis.call('HSET', P .. 'dmeta:' .. id, c.id, c.meta)
  redis.call('DEL', P .. 'lease:' .. id .. ':' .. c.id)
  local seq = redis.call('ZSCORE', P .. 'dord:' .. id, c.id)
  local m = member(seq, c.id)
  local wasPending = redis.call('ZSCORE', P .. 'dpend:' .. id, m)
  if c.state == 'pending' then
    redis.call('ZREM', P .. 'dfin:' .. id, c.id)
    redis.call('ZADD', P .. 'dpend:' .. id, c.due, m)
  else
    redis.call('ZADD', P .. 'dfin:' .. id, seq, c.id)
    if wasPending then
      redis.call('ZREM', P .. 'dpend:' .. id, m)
      trim(id, limit)
    end
  end
end
refreshDue(id)
return {'ok'}
