import { LuaScript } from './lua-script';

/**
 * reserve: every check first, then every increment, inside one script, so a rejected request
 * changes nothing and concurrent requests cannot both take the last unit.
 *
 * KEYS: 1 second window, 2 minute window, 3 day calls, 4 month quota calls, 5 day full-text set
 * ARGV: 1 cost, 2 perSecond, 3 perMinute, 4 daily, 5 monthly, 6 creditsAllowed (1/0),
 *       7 hasDoc (1/0), 8 docId, 9 cap, 10 ttlSecond, 11 ttlMinute, 12 ttlDay, 13 ttlMonth
 * Returns {status, source, added, second, minute, daily, monthly, fullText};
 * status: ok | second | minute | full_text | daily | monthly.
 * A window key gets its TTL when it is born (its first increment), so TTLs never slide.
 */
export const RESERVE_SCRIPT = new LuaScript(
  `
local cost = tonumber(ARGV[1])
local s = tonumber(redis.call('GET', KEYS[1]) or '0')
local m = tonumber(redis.call('GET', KEYS[2]) or '0')
local d = tonumber(redis.call('GET', KEYS[3]) or '0')
local mo = tonumber(redis.call('GET', KEYS[4]) or '0')
local ft = redis.call('SCARD', KEYS[5])
local function res(status, source, added) return {status, source, added, s, m, d, mo, ft} end
if s + 1 > tonumber(ARGV[2]) then return res('second', 'quota', 0) end
if m + 1 > tonumber(ARGV[3]) then return res('minute', 'quota', 0) end
local add = 0
if ARGV[7] == '1' and redis.call('SISMEMBER', KEYS[5], ARGV[8]) == 0 then
  if ft >= tonumber(ARGV[9]) then return res('full_text', 'quota', 0) end
  add = 1
end
if d + cost > tonumber(ARGV[4]) then return res('daily', 'quota', 0) end
local source = 'quota'
if mo + cost > tonumber(ARGV[5]) then
  if ARGV[6] ~= '1' then return res('monthly', 'quota', 0) end
  source = 'credits'
end
s = redis.call('INCR', KEYS[1])
if s == 1 then redis.call('EXPIRE', KEYS[1], ARGV[10]) end
m = redis.call('INCR', KEYS[2])
if m == 1 then redis.call('EXPIRE', KEYS[2], ARGV[11]) end
d = redis.call('INCRBY', KEYS[3], cost)
if d == cost then redis.call('EXPIRE', KEYS[3], ARGV[12]) end
if source == 'quota' then
  mo = redis.call('INCRBY', KEYS[4], cost)
  if mo == cost then redis.call('EXPIRE', KEYS[4], ARGV[13]) end
end
if add == 1 then
  ft = redis.call('SADD', KEYS[5], ARGV[8]) + ft
  redis.call('EXPIRE', KEYS[5], ARGV[12])
end
return res('ok', source, add)
`,
  5,
);

/**
 * refund: the marker (SET NX) makes it idempotent per request id. Counters are lowered only while
 * their key still exists and never below zero, so a late refund cannot recreate an expired window.
 *
 * KEYS: 1 day calls, 2 month quota calls, 3 day full-text set, 4 refund marker
 * ARGV: 1 cost, 2 refundMonth (1/0), 3 hasDoc (1/0), 4 docId, 5 marker TTL
 * Returns 1 when applied, 0 when this request was already refunded.
 */
export const REFUND_SCRIPT = new LuaScript(
  `
if not redis.call('SET', KEYS[4], '1', 'NX', 'EX', ARGV[5]) then return 0 end
local cost = tonumber(ARGV[1])
local function give(key)
  local v = tonumber(redis.call('GET', key) or '0')
  if v > 0 then redis.call('DECRBY', key, math.min(v, cost)) end
end
give(KEYS[1])
if ARGV[2] == '1' then give(KEYS[2]) end
if ARGV[3] == '1' then redis.call('SREM', KEYS[3], ARGV[4]) end
return 1
`,
  4,
);
