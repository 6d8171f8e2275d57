-- ARGV[3]: the request time (ms). Generated accounts go by it in the idle index.

local a = acct(ARGV[2])
local origin = redis.call('HGET', a, 'origin')
if not origin then return 0 end
redis.call('HSET', a, 'lastSeenMs', ARGV[3])
if origin == 'generated' then redis.call('ZADD', P .. 'idle', ARGV[3], ARGV[2]) end
return 1
