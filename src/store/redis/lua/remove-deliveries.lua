-- ARGV[3]: [deliveryId...]. Takes them out of the log whatever their state, with their claims;
-- ids the log does not hold are passed over. Answers how many it took.

local id = ARGV[2]
local taken = 0
for _, did in ipairs(cjson.decode(ARGV[3])) do
  local seq = redis.call('ZSCORE', P .. 'dord:' .. id, did)
  if seq then
    redis.call('ZREM', P .. 'dpend:' .. id, member(seq, did))
    redis.call('ZREM', P .. 'dfin:' .. id, did)
    redis.call('ZREM', P .. 'dord:' .. id, did)
    redis.call('HDEL', P .. 'dlv:' .. id, did)
    redis.call('HDEL', P .. 'dmeta:' .. id, did)
    redis.call('DEL', P .. 'lease:' .. id .. ':' .. did)
    taken = taken + 1
  end
end
refreshDue(id)
return taken
