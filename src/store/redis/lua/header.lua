-- The start of every script: the key prefix (ARGV[1]) and how keys and pending members are made from it.

local P = ARGV[1]
local function acct(id) return P .. 'acct:' .. id end
local function num(x) return string.format('%.17g', x) end
-- A pending delivery's member in dpend:<id> is '<creation number>:<delivery id>', so deliveries
-- due at the same instant come in creation order, as in the embedded store.
local function member(seq, did) return string.format('%012d', tonumber(seq)) .. ':' .. did end
local function pendingMember(id, did)
  local seq = redis.call('ZSCORE', P .. 'dord:' .. id, did)
  if not seq then return nil end
  return member(seq, did)
end
local function didOf(m) return string.sub(m, 14) end
