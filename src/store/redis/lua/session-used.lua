-- The index of the login sessions, which bounds them to MAX_SESSIONS. ARGV[2] the session id, ARGV[3]
-- now (process clock, ms), ARGV[4] the session lifetime (ms), ARGV[5] the most sessions kept ('' for
-- no bound), ARGV[6] what happened: 'set' (saved), 'touch' (used; a session the index no longer
-- holds stays out) or 'end' (destroyed), ARGV[7] the session's holder (the network it was signed in
-- from). Keys: `sessions` (ids by last use), `sessholder` (id -> holder), `sessh:<holder>` (its ids in
-- the order they were last used, by a sequence `sessseq`: sign-ins of one millisecond keep their
-- order, so the oldest goes first) and `sessholders` (holders by how many they hold). Drops the ids whose sessions expired
-- (Redis removed them by their TTL), and past the bound ends the least recently used session of the
-- biggest holder, so a flood of sign-ins ends its own sessions. O(log n) plus what it drops.

local idx = P .. 'sessions'
local holders = P .. 'sessholders'
local holderOf = P .. 'sessholder'

-- Takes the id out of the index (its session key is the caller's).
local function forget(sid)
  redis.call('ZREM', idx, sid)
  local h = redis.call('HGET', holderOf, sid)
  if not h then return end
  redis.call('HDEL', holderOf, sid)
  if redis.call('ZREM', P .. 'sessh:' .. h, sid) == 1 and tonumber(redis.call('ZINCRBY', holders, -1, h)) <= 0 then
    redis.call('ZREM', holders, h)
  end
end

local sid, now, mode, holder = ARGV[2], ARGV[3], ARGV[6], ARGV[7]
if mode == 'end' then
  forget(sid)
  return 0
end
if mode == 'touch' then
  if redis.call('ZSCORE', idx, sid) then
    redis.call('ZADD', idx, now, sid)
    local h = redis.call('HGET', holderOf, sid)
    if h then redis.call('ZADD', P .. 'sessh:' .. h, 'XX', redis.call('INCR', P .. 'sessseq'), sid) end
  end
else
  local was = redis.call('HGET', holderOf, sid)
  if was and was ~= holder then forget(sid) end
  redis.call('ZADD', idx, now, sid)
  redis.call('HSET', holderOf, sid, holder)
  if redis.call('ZADD', P .. 'sessh:' .. holder, redis.call('INCR', P .. 'sessseq'), sid) == 1 then redis.call('ZINCRBY', holders, 1, holder) end
end
for _, expired in ipairs(redis.call('ZRANGEBYSCORE', idx, '-inf', '(' .. num(tonumber(now) - tonumber(ARGV[4])))) do
  forget(expired)
end
if ARGV[5] ~= '' then
  local over = redis.call('ZCARD', idx) - tonumber(ARGV[5])
  while over > 0 do
    local biggest = redis.call('ZREVRANGE', holders, 0, 0)[1]
    if not biggest then break end
    local oldest = redis.call('ZRANGE', P .. 'sessh:' .. biggest, 0, 0)[1]
    if not oldest then
      redis.call('ZREM', holders, biggest)
    else
      redis.call('DEL', P .. 'sess:' .. oldest)
      forget(oldest)
      over = over - 1
    end
  end
end
return 0
