-- ARGV[3]: [{id, json, meta, state, due}].

local id = ARGV[2]
if redis.call('EXISTS', acct(id)) == 0 then return {'missing'} end
for _, d in ipairs(cjson.decode(ARGV[3])) do addDelivery(id, d) end
refreshDue(id)
return {'ok'}
