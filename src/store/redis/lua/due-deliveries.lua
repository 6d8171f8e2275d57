-- ARGV[3]: now on the account clock, ARGV[4]: the limit, ARGV[5]: origins to leave out, as a JSON
-- array ('' for none). Unclaimed pending deliveries due by then, oldest due first, at most one of
-- each subscription and none of a subscription with a claimed delivery (its notifications go one
-- at a time, in order). A delivery's meta is [state, kind, subscriptionId, locationId, origin]; a
-- record stored without an origin is never left out, and one of no subscription (cjson.null) is
-- never held back.

local id = ARGV[2]
local limit = tonumber(ARGV[4])
local out = {}
if limit <= 0 then return out end
local skip = nil
if ARGV[5] ~= '' then
  skip = {}
  for _, o in ipairs(cjson.decode(ARGV[5])) do skip[o] = true end
end
local function subscriptionOf(meta)
  local sub = meta[3]
  if sub == nil or sub == cjson.null then return nil end
  return sub
end
local due = redis.call('ZRANGEBYSCORE', P .. 'dpend:' .. id, '-inf', ARGV[3])
local metas = {}
local busy = {}
local leased = {}
for i, m in ipairs(due) do
  local did = didOf(m)
  local raw = redis.call('HGET', P .. 'dmeta:' .. id, did)
  metas[i] = raw and cjson.decode(raw) or {}
  if redis.call('EXISTS', P .. 'lease:' .. id .. ':' .. did) == 1 then
    leased[i] = true
    local sub = subscriptionOf(metas[i])
    if sub then busy[sub] = true end
  end
end
for i, m in ipairs(due) do
  if not leased[i] then
    local meta = metas[i]
    local sub = subscriptionOf(meta)
    local held = sub and busy[sub]
    if sub then busy[sub] = true end
    local origin = meta[5]
    if not held and not (skip and origin and skip[origin]) then
      out[#out + 1] = redis.call('HGET', P .. 'dlv:' .. id, didOf(m))
      if #out >= limit then break end
    end
  end
end
return out
