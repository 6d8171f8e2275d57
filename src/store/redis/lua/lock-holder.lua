-- ARGV[2]: the lock, ARGV[3]: the holder's token, ARGV[4]: a new lifetime (ms) or '' to release.

local key = P .. 'lock:' .. ARGV[2]
if redis.call('GET', key) ~= ARGV[3] then return 0 end
if ARGV[4] == '' then redis.call('DEL', key) else redis.call('PEXPIRE', key, ARGV[4]) end
return 1
