-- ARGV[2]: now on the process clock, ARGV[3]: how many due accounts to look into. Answers {dueDeliveries, dueAccounts, oldestDueMs or ''}.

local now = tonumber(ARGV[2])
local accounts = redis.call('ZCOUNT', P .. 'due', '-inf', ARGV[2])
local due = redis.call('ZRANGEBYSCORE', P .. 'due', '-inf', ARGV[2], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[3]))
local deliveries = 0
local oldest = nil
for i = 1, #due, 2 do
  local id = due[i]
  local at = tonumber(due[i + 1])
  if at > 0 and (oldest == nil or at < oldest) then oldest = at end
  local h = redis.call('HMGET', acct(id), 'offsetMs', 'frozenAtMs')
  if h[1] then
    local accountNow = now + tonumber(h[1])
    if h[2] ~= '' then accountNow = tonumber(h[2]) end
    deliveries = deliveries + redis.call('ZCOUNT', P .. 'dpend:' .. id, '-inf', num(accountNow))
  end
end
local oldestText = ''
if oldest ~= nil then oldestText = num(oldest) end
return {deliveries, accounts, oldestText}
