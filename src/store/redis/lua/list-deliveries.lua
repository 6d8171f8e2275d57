-- ARGV[3]: {subscriptionId?, locationId?, state?, kind?}, ARGV[4]: offset, ARGV[5]: limit. Answers {total, {json...}}, newest first.

local id = ARGV[2]
local f = cjson.decode(ARGV[3])
local offset = tonumber(ARGV[4])
local limit = tonumber(ARGV[5])
local order = P .. 'dord:' .. id
local records = P .. 'dlv:' .. id
local page = {}
if f.subscriptionId == nil and f.locationId == nil and f.state == nil and f.kind == nil then
  if limit > 0 then
    for _, did in ipairs(redis.call('ZREVRANGE', order, offset, offset + limit - 1)) do page[#page + 1] = redis.call('HGET', records, did) end
  end
  return {redis.call('ZCARD', order), page}
end
local total = 0
local metas = P .. 'dmeta:' .. id
for _, did in ipairs(redis.call('ZREVRANGE', order, 0, -1)) do
  local m = cjson.decode(redis.call('HGET', metas, did))
  if (f.state == nil or m[1] == f.state) and (f.kind == nil or m[2] == f.kind)
    and (f.subscriptionId == nil or m[3] == f.subscriptionId) and (f.locationId == nil or m[4] == f.locationId) then
    if total >= offset and #page < limit then page[#page + 1] = redis.call('HGET', records, did) end
    total = total + 1
  end
end
return {total, page}
