-- ARGV[2]: the index kind, ARGV[3]: the key. Answers {account id, version of its document, its
-- last request time ('' when none)}, or nil.

local id = redis.call('HGET', P .. 'idx:' .. ARGV[2], ARGV[3])
if not id then return false end
local h = redis.call('HMGET', acct(id), 'v', 'lastSeenMs')
if not h[1] then return false end
return {id, h[1], h[2] or ''}
