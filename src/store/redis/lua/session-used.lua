-- A login session was saved or touched: ARGV[2] its id, ARGV[3] now (process clock, ms),
-- ARGV[4] the session lifetime (ms), ARGV[5] the most sessions kept ('' for no bound), ARGV[6]
-- '1' for a touch (a session the index no longer holds stays out). Records the use in the
-- `sessions` sorted set, drops the ids whose sessions expired (Redis removed them by their TTL),
-- and ends the least recently used sessions past the bound. O(log n) plus what it drops.

local idx = P .. 'sessions'
if ARGV[6] == '1' then redis.call('ZADD', idx, 'XX', ARGV[3], ARGV[2]) else redis.call('ZADD', idx, ARGV[3], ARGV[2]) end
redis.call('ZREMRANGEBYSCORE', idx, '-inf', '(' .. num(tonumber(ARGV[3]) - tonumber(ARGV[4])))
if ARGV[5] ~= '' then
  local over = redis.call('ZCARD', idx) - tonumber(ARGV[5])
  if over > 0 then
    local ended = redis.call('ZPOPMIN', idx, over)
    for i = 1, #ended, 2 do redis.call('DEL', P .. 'sess:' .. ended[i]) end
  end
end
return 0
