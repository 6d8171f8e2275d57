-- ARGV[3]: the entry (a JSON object), ARGV[4]: entries kept; ARGV[5] and ARGV[6], when given: a
-- channel and a message to publish once the entry is stored. Only for an existing account, so a
-- late append cannot outlive a delete (and announces nothing). The entry gets the account's next
-- seq (`jseq:<id>`, kept when the journal is cleared), written as its first key.

if redis.call('EXISTS', acct(ARGV[2])) == 0 then return 0 end
local journal = P .. 'jrnl:' .. ARGV[2]
local seq = redis.call('INCR', P .. 'jseq:' .. ARGV[2])
redis.call('LPUSH', journal, '{"seq":' .. seq .. ',' .. string.sub(ARGV[3], 2))
redis.call('LTRIM', journal, 0, tonumber(ARGV[4]) - 1)
if ARGV[5] then redis.call('PUBLISH', ARGV[5], ARGV[6]) end
return 1
