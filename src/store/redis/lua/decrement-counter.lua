-- ARGV[2]: the counter. One less, never below zero; its TTL is left alone.

local key = P .. 'ctr:' .. ARGV[2]
local n = tonumber(redis.call('GET', key) or '0')
if n > 0 then redis.call('DECR', key) end
return 0
