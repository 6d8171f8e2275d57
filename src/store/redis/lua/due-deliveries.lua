-- ARGV[3]: now on the account clock, ARGV[4]: the limit, ARGV[5]: origins to leave out, as a JSON
-- array ('' for none). Unclaimed pending deliveries due by then, oldest due first, at most one of
-- each subscription and none of a subscription with a claimed delivery before it (its
-- notifications go one at a time, in order: a claimed one was due when claimed, so it comes
-- before those of its subscription due since). A delivery's meta is [state, kind,
-- subscriptionId, locationId, origin]; a record stored without an origin is never left out, and
-- one of no subscription (cjson.null) is never held back.

local id = ARGV[2]
local limit = tonumber(ARGV[4])
local out = {}
if limit <= 0 then return out end
local skip = nil
if ARGV[5] ~= '' then
  skip = {}
  for _, o in ipairs(cjson.decode(ARGV[5])) do skip[o] = true end
end
-- The subscriptions with a delivery claimed or given already.
local busy = {}
for _, m in ipairs(redis.call('ZRANGEBYSCORE', P .. 'dpend:' .. id, '-inf', ARGV[3])) do
  local did = didOf(m)
  local raw = redis.call('HGET', P .. 'dmeta:' .. id, did)
  local meta = raw and cjson.decode(raw) or {}
  local sub = meta[3]
  if sub == cjson.null then sub = nil end
  local held = sub ~= nil and busy[sub]
  if sub ~= nil then busy[sub] = true end
  if not held and redis.call('EXISTS', P .. 'lease:' .. id .. ':' .. did) == 0 then
    local origin = meta[5]
    if not (skip and origin and skip[origin]) then
      out[#out + 1] = redis.call('HGET', P .. 'dlv:' .. id, did)
      if #out >= limit then break end
    end
  end
end
return out
