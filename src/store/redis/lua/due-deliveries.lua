-- ARGV[3]: now on the account clock, ARGV[4]: the limit, ARGV[5]: origins to leave out, as a JSON
-- array ('' for none). Unclaimed pending deliveries due by then, oldest due first. The origin is the
-- fifth item of a delivery's meta (a record stored without one is never left out).

local id = ARGV[2]
local limit = tonumber(ARGV[4])
local out = {}
if limit <= 0 then return out end
local skip = nil
if ARGV[5] ~= '' then
  skip = {}
  for _, o in ipairs(cjson.decode(ARGV[5])) do skip[o] = true end
end
for _, m in ipairs(redis.call('ZRANGEBYSCORE', P .. 'dpend:' .. id, '-inf', ARGV[3])) do
  local did = didOf(m)
  if redis.call('EXISTS', P .. 'lease:' .. id .. ':' .. did) == 0 then
    local wanted = true
    if skip then
      local origin = cjson.decode(redis.call('HGET', P .. 'dmeta:' .. id, did))[5]
      wanted = not (origin and skip[origin])
    end
    if wanted then
      out[#out + 1] = redis.call('HGET', P .. 'dlv:' .. id, did)
      if #out >= limit then break end
    end
  end
end
return out
