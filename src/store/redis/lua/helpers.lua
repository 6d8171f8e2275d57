-- The helpers of the scripts that change accounts and deliveries (after header.lua; the hot, small
-- scripts go without them).

-- The account's due hint on the process clock: its earliest pending delivery or running
-- scenario step, on its clock (running: minus the offset; frozen: 0 if already reached, else none).
local function refreshDue(id)
  local h = redis.call('HMGET', acct(id), 'offsetMs', 'frozenAtMs', 'runDueMs')
  if not h[1] then
    redis.call('ZREM', P .. 'due', id)
    return
  end
  local virtual = nil
  if h[3] ~= '' then virtual = tonumber(h[3]) end
  local first = redis.call('ZRANGE', P .. 'dpend:' .. id, 0, 0, 'WITHSCORES')
  if first[2] and first[2] ~= 'inf' then
    local d = tonumber(first[2])
    if virtual == nil or d < virtual then virtual = d end
  end
  local at = nil
  if virtual ~= nil then
    if h[2] ~= '' then
      if virtual <= tonumber(h[2]) then at = 0 end
    else
      at = virtual - tonumber(h[1])
    end
  end
  if at == nil then redis.call('ZREM', P .. 'due', id) else redis.call('ZADD', P .. 'due', num(at), id) end
end

-- d = {id, json, meta, state, due}: due is '+inf' for a pending delivery with no time, '' when finished.
local function addDelivery(id, d)
  local seq = redis.call('HINCRBY', acct(id), 'dseq', 1)
  redis.call('HSET', P .. 'dlv:' .. id, d.id, d.json)
  redis.call('HSET', P .. 'dmeta:' .. id, d.id, d.meta)
  redis.call('ZADD', P .. 'dord:' .. id, seq, d.id)
  if d.state == 'pending' then
    redis.call('ZADD', P .. 'dpend:' .. id, d.due, member(seq, d.id))
  else
    redis.call('ZADD', P .. 'dfin:' .. id, seq, d.id)
  end
end

-- Drops the oldest finished deliveries (in creation order) beyond the limit; pending ones are never dropped.
local function trim(id, limit)
  local fin = P .. 'dfin:' .. id
  while redis.call('ZCARD', fin) > limit do
    local did = redis.call('ZPOPMIN', fin)[1]
    redis.call('HDEL', P .. 'dlv:' .. id, did)
    redis.call('HDEL', P .. 'dmeta:' .. id, did)
    redis.call('ZREM', P .. 'dord:' .. id, did)
  end
end

local function conflictOf(id, entries)
  for _, e in ipairs(entries) do
    local owner = redis.call('HGET', P .. 'idx:' .. e[1], e[2])
    if owner and owner ~= id then return {'conflict', e[1], e[2]} end
  end
  return nil
end

local function dropLeases(id)
  for _, m in ipairs(redis.call('ZRANGE', P .. 'dpend:' .. id, 0, -1)) do
    redis.call('DEL', P .. 'lease:' .. id .. ':' .. didOf(m))
  end
end
