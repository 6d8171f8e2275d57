-- ARGV[2]: the counter, ARGV[3]: its lifetime (ms) from the first increment: a fixed window (a
-- decrement to zero keeps it: the TTL is set only on a counter that has none).

local key = P .. 'ctr:' .. ARGV[2]
local n = redis.call('INCR', key)
if redis.call('PTTL', key) == -1 then redis.call('PEXPIRE', key, ARGV[3]) end
return n
