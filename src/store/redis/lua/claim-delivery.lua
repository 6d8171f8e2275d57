-- ARGV[3]: delivery id, ARGV[4]: owner, ARGV[5]: lease (ms), ARGV[6]: due by (ms on the account clock) or ''.

local id = ARGV[2]
local m = pendingMember(id, ARGV[3])
if not m then return 0 end
local score = redis.call('ZSCORE', P .. 'dpend:' .. id, m)
if not score then return 0 end
if ARGV[6] ~= '' and (score == 'inf' or tonumber(score) > tonumber(ARGV[6])) then return 0 end
if redis.call('SET', P .. 'lease:' .. id .. ':' .. ARGV[3], ARGV[4], 'NX', 'PX', ARGV[5]) then return 1 end
return 0
