-- ARGV[2]: the counter, ARGV[3]: the window it counts in, ARGV[4]: its lifetime (ms) from the
-- window's first increment. One key per counter whatever its windows: an increment in another
-- window starts it again at 1. Stored as '<window>:<count>'.

local key = P .. 'ctr:' .. ARGV[2]
local stored = redis.call('GET', key)
local n = 1
if stored then
  local sep = string.find(stored, ':', 1, true)
  if sep and string.sub(stored, 1, sep - 1) == ARGV[3] then n = tonumber(string.sub(stored, sep + 1)) + 1 end
end
if n == 1 then
  redis.call('SET', key, ARGV[3] .. ':1', 'PX', ARGV[4])
else
  redis.call('SET', key, ARGV[3] .. ':' .. n, 'KEEPTTL')
end
return n
