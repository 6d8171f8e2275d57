local id = ARGV[2]
local a = acct(id)
local h = redis.call('HMGET', a, 'createdAt', 'entries')
if not h[1] then return 0 end
for _, e in ipairs(cjson.decode(h[2])) do
  local index = P .. 'idx:' .. e[1]
  if redis.call('HGET', index, e[2]) == id then redis.call('HDEL', index, e[2]) end
end
redis.call('ZREM', P .. 'accounts', h[1] .. '/' .. id)
redis.call('ZREM', P .. 'idle', id)
redis.call('ZREM', P .. 'due', id)
dropLeases(id)
redis.call('DEL', a, P .. 'dlv:' .. id, P .. 'dmeta:' .. id, P .. 'dord:' .. id, P .. 'dpend:' .. id, P .. 'dfin:' .. id, P .. 'jrnl:' .. id, P .. 'jseq:' .. id)
return 1
