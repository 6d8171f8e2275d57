-- ARGV[2]: the cursor ('' for the first page), ARGV[3]: the limit. Answers {more, {{id, name, origin, createdAt, lastSeenMs, cursor}...}}.

local limit = tonumber(ARGV[3])
local min = '-'
if ARGV[2] ~= '' then min = '(' .. ARGV[2] end
local members = redis.call('ZRANGEBYLEX', P .. 'accounts', min, '+', 'LIMIT', 0, limit + 1)
local out = {}
local n = math.min(#members, limit)
for i = 1, n do
  local entry = members[i]
  local id = string.sub(entry, string.find(entry, '/', 1, true) + 1)
  local h = redis.call('HMGET', acct(id), 'name', 'origin', 'createdAt', 'lastSeenMs')
  out[i] = {id, h[1] or '', h[2] or '', h[3] or '', h[4] or '', entry}
end
local more = 0
if #members > n then more = 1 end
return {more, out}
