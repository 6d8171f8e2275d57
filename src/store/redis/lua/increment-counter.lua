-- ARGV[2]: the counter, ARGV[3]: its lifetime (ms) from the first increment: a fixed window.

local key = P .. 'ctr:' .. ARGV[2]
local n = redis.call('INCR', key)
if n == 1 then redis.call('PEXPIRE', key, ARGV[3]) end
return n
