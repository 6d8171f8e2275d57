/**
 * The Lua scripts of the Redis store. Each runs atomically in Redis, so a change of one account
 * (its document, its index keys, its deliveries and its due hint) is applied whole or not at
 * all, whichever replica sends it. Every script gets the key prefix as ARGV[1] and, for the
 * per-account ones, the account id as ARGV[2]; it builds its keys from them (see keys.ts), since
 * the index keys it touches depend on the document. That ties the store to one Redis (or a
 * primary with replicas and Sentinel), not Redis Cluster, which a sandbox does not need.
 *
 * Values arrive as strings and are written as strings: Lua numbers are doubles, and cjson would
 * re-encode JSON with 14 significant digits and `{}` for empty arrays, so no script encodes
 * JSON; they only decode the small argument objects made by the TypeScript side.
 */

const HEADER = `
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
`;

/** The helpers of the scripts that change accounts and deliveries (the hot, small scripts go without them). */
const HELPERS = `

-- The account's due hint on the process clock: its earliest pending delivery or running
-- scenario step, on its clock (running: minus the offset; frozen: 0 if already reached, else none).
local function refreshDue(id)
  local h = redis.call('HMGET', acct(id), 'offsetMs', 'frozenAtMs', 'runDueMs')
  if not h[1] then
    redis.call('ZREM', P .. 'due', id)
    return
  end
  local virtual = nil
  if h[3] ~= '' then virtual = tonumber(h[3]) end
  local first = redis.call('ZRANGE', P .. 'dpend:' .. id, 0, 0, 'WITHSCORES')
  if first[2] and first[2] ~= 'inf' then
    local d = tonumber(first[2])
    if virtual == nil or d < virtual then virtual = d end
  end
  local at = nil
  if virtual ~= nil then
    if h[2] ~= '' then
      if virtual <= tonumber(h[2]) then at = 0 end
    else
      at = virtual - tonumber(h[1])
    end
  end
  if at == nil then redis.call('ZREM', P .. 'due', id) else redis.call('ZADD', P .. 'due', num(at), id) end
end

-- d = {id, json, meta, state, due}: due is '+inf' for a pending delivery with no time, '' when finished.
local function addDelivery(id, d)
  local seq = redis.call('HINCRBY', acct(id), 'dseq', 1)
  redis.call('HSET', P .. 'dlv:' .. id, d.id, d.json)
  redis.call('HSET', P .. 'dmeta:' .. id, d.id, d.meta)
  redis.call('ZADD', P .. 'dord:' .. id, seq, d.id)
  if d.state == 'pending' then
    redis.call('ZADD', P .. 'dpend:' .. id, d.due, member(seq, d.id))
  else
    redis.call('ZADD', P .. 'dfin:' .. id, seq, d.id)
  end
end

-- Drops the oldest finished deliveries (in creation order) beyond the limit; pending ones are never dropped.
local function trim(id, limit)
  local fin = P .. 'dfin:' .. id
  while redis.call('ZCARD', fin) > limit do
    local did = redis.call('ZPOPMIN', fin)[1]
    redis.call('HDEL', P .. 'dlv:' .. id, did)
    redis.call('HDEL', P .. 'dmeta:' .. id, did)
    redis.call('ZREM', P .. 'dord:' .. id, did)
  end
end

local function conflictOf(id, entries)
  for _, e in ipairs(entries) do
    local owner = redis.call('HGET', P .. 'idx:' .. e[1], e[2])
    if owner and owner ~= id then return {'conflict', e[1], e[2]} end
  end
  return nil
end

local function dropLeases(id)
  for _, m in ipairs(redis.call('ZRANGE', P .. 'dpend:' .. id, 0, -1)) do
    redis.call('DEL', P .. 'lease:' .. id .. ':' .. didOf(m))
  end
end
`;

export interface LuaScript {
  readonly name: string;
  readonly source: string;
}

const script = (name: string, body: string, uses: 'helpers' | 'header' = 'header'): LuaScript => ({ name, source: `${HEADER}${uses === 'helpers' ? HELPERS : ''}\n${body}` });

/** ARGV[3]: the document; ARGV[4]: {name, origin, createdAt, createdAtMs, offsetMs, frozenAtMs, runDueMs, entries, entriesJson, deliveries}. */
export const CREATE_ACCOUNT = script(
  'createAccount',
  `
local id = ARGV[2]
local a = acct(id)
if redis.call('EXISTS', a) == 1 then return {'exists'} end
local m = cjson.decode(ARGV[4])
local c = conflictOf(id, m.entries)
if c then return c end
redis.call('HSET', a, 'doc', ARGV[3], 'v', '1', 'name', m.name, 'origin', m.origin, 'createdAt', m.createdAt,
  'lastSeenMs', '', 'offsetMs', m.offsetMs, 'frozenAtMs', m.frozenAtMs, 'runDueMs', m.runDueMs, 'entries', m.entriesJson, 'dseq', '0')
for _, e in ipairs(m.entries) do redis.call('HSET', P .. 'idx:' .. e[1], e[2], id) end
redis.call('ZADD', P .. 'accounts', 0, m.createdAt .. '/' .. id)
if m.origin == 'generated' then redis.call('ZADD', P .. 'idle', m.createdAtMs, id) end
for _, d in ipairs(m.deliveries) do addDelivery(id, d) end
refreshDue(id)
return {'ok'}
`,
  'helpers',
);

/**
 * The compare-and-set of AccountStore.update. ARGV[3]: the version the change was made on;
 * ARGV[4]: the new document; ARGV[5]: {name, offsetMs, frozenAtMs, runDueMs, entriesJson ('' when
 * the keys did not change), added, removed, deliveries}. Answers {'ok', version}, {'stale', version,
 * doc} (another change came first: redo the change on the document sent back), {'missing'} or
 * {'conflict', kind, key}.
 */
export const UPDATE_ACCOUNT = script(
  'updateAccount',
  `
local id = ARGV[2]
local a = acct(id)
local v = redis.call('HGET', a, 'v')
if not v then return {'missing'} end
if v ~= ARGV[3] then return {'stale', v, redis.call('HGET', a, 'doc')} end
local m = cjson.decode(ARGV[5])
local c = conflictOf(id, m.added)
if c then return c end
for _, e in ipairs(m.removed) do
  local index = P .. 'idx:' .. e[1]
  if redis.call('HGET', index, e[2]) == id then redis.call('HDEL', index, e[2]) end
end
for _, e in ipairs(m.added) do redis.call('HSET', P .. 'idx:' .. e[1], e[2], id) end
local version = redis.call('HINCRBY', a, 'v', 1)
redis.call('HSET', a, 'doc', ARGV[4], 'name', m.name, 'offsetMs', m.offsetMs, 'frozenAtMs', m.frozenAtMs, 'runDueMs', m.runDueMs)
if m.entriesJson ~= '' then redis.call('HSET', a, 'entries', m.entriesJson) end
for _, d in ipairs(m.deliveries) do addDelivery(id, d) end
refreshDue(id)
return {'ok', tostring(version)}
`,
  'helpers',
);

export const DELETE_ACCOUNT = script(
  'deleteAccount',
  `
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
`,
  'helpers',
);

/**
 * ARGV[2]: the index kind, ARGV[3]: the key. Answers {account id, version of its document, its
 * last request time ('' when none)}, or nil.
 */
export const OWNER_VERSION = script(
  'ownerVersion',
  `
local id = redis.call('HGET', P .. 'idx:' .. ARGV[2], ARGV[3])
if not id then return false end
local h = redis.call('HMGET', acct(id), 'v', 'lastSeenMs')
if not h[1] then return false end
return {id, h[1], h[2] or ''}
`,
);

/** ARGV[3]: the request time (ms). Generated accounts go by it in the idle index. */
export const TOUCH_ACCOUNT = script(
  'touchAccount',
  `
local a = acct(ARGV[2])
local origin = redis.call('HGET', a, 'origin')
if not origin then return 0 end
redis.call('HSET', a, 'lastSeenMs', ARGV[3])
if origin == 'generated' then redis.call('ZADD', P .. 'idle', ARGV[3], ARGV[2]) end
return 1
`,
);

/** ARGV[2]: the cursor ('' for the first page), ARGV[3]: the limit. Answers {more, {{id, name, origin, createdAt, lastSeenMs, cursor}...}}. */
export const LIST_ACCOUNTS = script(
  'listAccounts',
  `
local limit = tonumber(ARGV[3])
local min = '-'
if ARGV[2] ~= '' then min = '(' .. ARGV[2] end
local members = redis.call('ZRANGEBYLEX', P .. 'accounts', min, '+', 'LIMIT', 0, limit + 1)
local out = {}
local n = math.min(#members, limit)
for i = 1, n do
  local member = members[i]
  local id = string.sub(member, string.find(member, '/', 1, true) + 1)
  local h = redis.call('HMGET', acct(id), 'name', 'origin', 'createdAt', 'lastSeenMs')
  out[i] = {id, h[1] or '', h[2] or '', h[3] or '', h[4] or '', member}
end
local more = 0
if #members > n then more = 1 end
return {more, out}
`,
);

/** ARGV[3]: [{id, json, meta, state, due}]. */
export const ADD_DELIVERIES = script(
  'addDeliveries',
  `
local id = ARGV[2]
if redis.call('EXISTS', acct(id)) == 0 then return {'missing'} end
for _, d in ipairs(cjson.decode(ARGV[3])) do addDelivery(id, d) end
refreshDue(id)
return {'ok'}
`,
  'helpers',
);

/**
 * The compare-and-set of delivery changes: ARGV[3] the log limit, ARGV[4] [{id, old, json, meta,
 * state, due}], applied all or none, each only if the stored record is still `old`. A change ends
 * the delivery's claim; a delivery leaving the pending state trims the log.
 */
export const CHANGE_DELIVERIES = script(
  'changeDeliveries',
  `
local id = ARGV[2]
local limit = tonumber(ARGV[3])
local changes = cjson.decode(ARGV[4])
local records = P .. 'dlv:' .. id
for _, c in ipairs(changes) do
  if redis.call('HGET', records, c.id) ~= c.old then return {'stale'} end
end
for _, c in ipairs(changes) do
  redis.call('HSET', records, c.id, c.json)
  redis.call('HSET', P .. 'dmeta:' .. id, c.id, c.meta)
  redis.call('DEL', P .. 'lease:' .. id .. ':' .. c.id)
  local seq = redis.call('ZSCORE', P .. 'dord:' .. id, c.id)
  local m = member(seq, c.id)
  local wasPending = redis.call('ZSCORE', P .. 'dpend:' .. id, m)
  if c.state == 'pending' then
    redis.call('ZREM', P .. 'dfin:' .. id, c.id)
    redis.call('ZADD', P .. 'dpend:' .. id, c.due, m)
  else
    redis.call('ZADD', P .. 'dfin:' .. id, seq, c.id)
    if wasPending then
      redis.call('ZREM', P .. 'dpend:' .. id, m)
      trim(id, limit)
    end
  end
end
refreshDue(id)
return {'ok'}
`,
  'helpers',
);

/**
 * ARGV[3]: now on the account clock, ARGV[4]: the limit, ARGV[5]: origins to leave out, as a JSON
 * array ('' for none). Unclaimed pending deliveries due by then, oldest due first. The origin is the
 * fifth item of a delivery's meta (a record stored without one is never left out).
 */
export const DUE_DELIVERIES = script(
  'dueDeliveries',
  `
local id = ARGV[2]
local limit = tonumber(ARGV[4])
local out = {}
if limit <= 0 then return out end
local skip = nil
if ARGV[5] ~= '' then
  skip = {}
  for _, o in ipairs(cjson.decode(ARGV[5])) do skip[o] = true end
end
for _, m in ipairs(redis.call('ZRANGEBYSCORE', P .. 'dpend:' .. id, '-inf', ARGV[3])) do
  local did = didOf(m)
  if redis.call('EXISTS', P .. 'lease:' .. id .. ':' .. did) == 0 then
    local wanted = true
    if skip then
      local origin = cjson.decode(redis.call('HGET', P .. 'dmeta:' .. id, did))[5]
      wanted = not (origin and skip[origin])
    end
    if wanted then
      out[#out + 1] = redis.call('HGET', P .. 'dlv:' .. id, did)
      if #out >= limit then break end
    end
  end
end
return out
`,
);

/** ARGV[3]: delivery id, ARGV[4]: owner, ARGV[5]: lease (ms), ARGV[6]: due by (ms on the account clock) or ''. */
export const CLAIM_DELIVERY = script(
  'claimDelivery',
  `
local id = ARGV[2]
local m = pendingMember(id, ARGV[3])
if not m then return 0 end
local score = redis.call('ZSCORE', P .. 'dpend:' .. id, m)
if not score then return 0 end
if ARGV[6] ~= '' and (score == 'inf' or tonumber(score) > tonumber(ARGV[6])) then return 0 end
if redis.call('SET', P .. 'lease:' .. id .. ':' .. ARGV[3], ARGV[4], 'NX', 'PX', ARGV[5]) then return 1 end
return 0
`,
);

export const RELEASE_DELIVERY = script(
  'releaseDelivery',
  `
local lease = P .. 'lease:' .. ARGV[2] .. ':' .. ARGV[3]
if redis.call('GET', lease) == ARGV[4] then redis.call('DEL', lease) end
return 0
`,
);

/** ARGV[3]: {subscriptionId?, locationId?, state?, kind?}, ARGV[4]: offset, ARGV[5]: limit. Answers {total, {json...}}, newest first. */
export const LIST_DELIVERIES = script(
  'listDeliveries',
  `
local id = ARGV[2]
local f = cjson.decode(ARGV[3])
local offset = tonumber(ARGV[4])
local limit = tonumber(ARGV[5])
local order = P .. 'dord:' .. id
local records = P .. 'dlv:' .. id
local page = {}
if f.subscriptionId == nil and f.locationId == nil and f.state == nil and f.kind == nil then
  if limit > 0 then
    for _, did in ipairs(redis.call('ZREVRANGE', order, offset, offset + limit - 1)) do page[#page + 1] = redis.call('HGET', records, did) end
  end
  return {redis.call('ZCARD', order), page}
end
local total = 0
local metas = P .. 'dmeta:' .. id
for _, did in ipairs(redis.call('ZREVRANGE', order, 0, -1)) do
  local m = cjson.decode(redis.call('HGET', metas, did))
  if (f.state == nil or m[1] == f.state) and (f.kind == nil or m[2] == f.kind)
    and (f.subscriptionId == nil or m[3] == f.subscriptionId) and (f.locationId == nil or m[4] == f.locationId) then
    if total >= offset and #page < limit then page[#page + 1] = redis.call('HGET', records, did) end
    total = total + 1
  end
end
return {total, page}
`,
);

export const CLEAR_DELIVERIES = script(
  'clearDeliveries',
  `
local id = ARGV[2]
dropLeases(id)
redis.call('DEL', P .. 'dlv:' .. id, P .. 'dmeta:' .. id, P .. 'dord:' .. id, P .. 'dpend:' .. id, P .. 'dfin:' .. id)
refreshDue(id)
return 0
`,
  'helpers',
);

/** ARGV[2]: now on the process clock, ARGV[3]: how many due accounts to look into. Answers {dueDeliveries, dueAccounts, oldestDueMs or ''}. */
export const QUEUE_STATS = script(
  'queueStats',
  `
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
`,
);

/**
 * ARGV[3]: the entry (a JSON object), ARGV[4]: entries kept; ARGV[5] and ARGV[6], when given: a
 * channel and a message to publish once the entry is stored. Only for an existing account, so a
 * late append cannot outlive a delete (and announces nothing). The entry gets the account's next
 * seq (`jseq:<id>`, kept when the journal is cleared), written as its first key.
 */
export const APPEND_JOURNAL = script(
  'appendJournal',
  `
if redis.call('EXISTS', acct(ARGV[2])) == 0 then return 0 end
local journal = P .. 'jrnl:' .. ARGV[2]
local seq = redis.call('INCR', P .. 'jseq:' .. ARGV[2])
redis.call('LPUSH', journal, '{"seq":' .. seq .. ',' .. string.sub(ARGV[3], 2))
redis.call('LTRIM', journal, 0, tonumber(ARGV[4]) - 1)
if ARGV[5] then redis.call('PUBLISH', ARGV[5], ARGV[6]) end
return 1
`,
);

/** ARGV[2]: the counter, ARGV[3]: its lifetime (ms) from the first increment: a fixed window. */
export const INCREMENT_COUNTER = script(
  'incrementCounter',
  `
local key = P .. 'ctr:' .. ARGV[2]
local n = redis.call('INCR', key)
if redis.call('PTTL', key) == -1 then redis.call('PEXPIRE', key, ARGV[3]) end
return n
`,
);

/** ARGV[2]: the counter. One less, never below zero; its TTL is left alone. */
export const DECREMENT_COUNTER = script(
  'decrementCounter',
  `
local key = P .. 'ctr:' .. ARGV[2]
local n = tonumber(redis.call('GET', key) or '0')
if n > 0 then redis.call('DECR', key) end
return 0
`,
);

export const SET_IF_ABSENT = script(
  'setIfAbsent',
  `
redis.call('HSETNX', P .. 'settings', ARGV[2], ARGV[3])
return redis.call('HGET', P .. 'settings', ARGV[2])
`,
);

/** ARGV[2]: the lock, ARGV[3]: the holder's token, ARGV[4]: a new lifetime (ms) or '' to release. */
export const LOCK_HOLDER = script(
  'lockHolder',
  `
local key = P .. 'lock:' .. ARGV[2]
if redis.call('GET', key) ~= ARGV[3] then return 0 end
if ARGV[4] == '' then redis.call('DEL', key) else redis.call('PEXPIRE', key, ARGV[4]) end
return 1
`,
);

/**
 * A login session was saved or touched: ARGV[2] its id, ARGV[3] now (process clock, ms),
 * ARGV[4] the session lifetime (ms), ARGV[5] the most sessions kept ('' for no bound), ARGV[6]
 * '1' for a touch (a session the index no longer holds stays out). Records the use in the
 * `sessions` sorted set, drops the ids whose sessions expired (Redis removed them by their TTL),
 * and ends the least recently used sessions past the bound. O(log n) plus what it drops.
 */
export const SESSION_USED = script(
  'sessionUsed',
  `
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
`,
);
