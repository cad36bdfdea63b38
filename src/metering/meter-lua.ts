import { LuaScript } from './lua-script';

/**
 * reserve: every check first, then every increment, inside one script, so a rejected request
 * changes nothing and concurrent requests cannot both take the last unit.
 *
 * KEYS: 1 second window, 2 minute window, 3 day calls, 4 month quota calls, 5 day full-text set,
 *       6 the day's full-text holders (see "Full-text holders" below), 7 the request's reply marker
 * ARGV: 1 the numbers, comma-separated: cost, perSecond, perMinute, daily, monthly,
 *         creditsAllowed (1/0), hasDoc (1/0), cap, ttlSecond, ttlMinute, ttlDay, ttlMonth;
 *       2 docId (any text, so on its own); 3 how many seconds to keep the reply in KEYS[7], or ''
 * A Redis Cluster client sends a command again when its node connection closed before the reply
 * came (ioredis' failover retry): a reserve that had run would count twice. With ARGV[3] the reply
 * of a reserve that took something is kept under the request's id, and a second run answers it,
 * taking nothing (a refusal took nothing: run again, it decides anew, and writes no key).
 * The numbers travel as one argument because the client's cost grows with the argument count
 * (each is measured and framed on its own): 2 arguments instead of 13 take a third off the
 * reserve's CPU in the gateway. Returns integers only, {status, source, added, second, minute,
 * daily, monthly, fullText, creditCalls}, status and source as the codes below: a reply of integers
 * needs no decoding from bytes in the client (see LuaScript's `integerReply`). capped: the document
 * is new today and the full-text cap is reached: every check passed, but only the rate windows are
 * taken (see ReserveResult.fullTextBlocked). perSecond 0 (a charge: CompiledPlan.chargeLimits;
 * a plan's own rates are at least 1): no rate window is checked or taken. Past the monthly quota with credits allowed, the quota's last calls
 * are taken and only the rest are credit calls.
 * A window key gets its TTL when it is born (its first increment), so TTLs never slide.
 */
export const RESERVE_ARGS = 12;

/** The reserve's status codes in its reply, by index: ok, capped, then the window that refused. */
export const RESERVE_STATUS = ['ok', 'capped', 'second', 'minute', 'daily', 'monthly'] as const;
/** The reserve's source codes in its reply, by index. */
export const RESERVE_SOURCE = ['quota', 'credits'] as const;
/** What the reserve did with the document, by index: nothing, added it to the day's set, held it. */
export const RESERVE_DOC = ['none', 'added', 'held'] as const;

// Full-text holders. A document in the day's full-text set is given back by a refund only when no
// call that opened it may have been served. Two calls for the same new document: the first adds it,
// the second finds it there and is not counted again; if the first is then refunded (an upstream
// failure, credits that ran out) while the second is served, the document must stay in the set, or
// the account opens more distinct documents in the day than its cap. So the day's holders hash
// keeps, per document, 2 × the calls that opened it and were not refunded (the one that added it
// included; those served are never settled, so they keep it) + 1 once the one that added it was
// refunded. The document leaves the set when that reaches 1: every call that opened it was
// refunded. A document with no entry (added before the hash existed) is given back by the call that
// added it, as before.

/** `local OK, CAPPED, … = 0, 1, …`: the codes as Lua constants named after them. */
const luaCodes = (names: readonly string[]): string =>
  `local ${names.map((n) => n.toUpperCase()).join(', ')} = ${names.map((_, i) => i).join(', ')}`;

export const RESERVE_SCRIPT = new LuaScript(
  `
${luaCodes(RESERVE_STATUS)}
${luaCodes(RESERVE_SOURCE)}
${luaCodes(RESERVE_DOC)}
local a = {}
local bad = 'reserve wants ${RESERVE_ARGS} finite numbers'
for v in string.gmatch(ARGV[1], '[^,]+') do
  local x = tonumber(v)
  if x == nil or x ~= x or x == math.huge or x == -math.huge then return redis.error_reply(bad) end
  a[#a + 1] = x
end
if #a ~= ${RESERVE_ARGS} then return redis.error_reply(bad) end
local cost, perSecond, perMinute, daily, monthly = a[1], a[2], a[3], a[4], a[5]
local creditsAllowed, hasDoc, cap = a[6], a[7], a[8]
local docId = ARGV[2]
local mark = tonumber(ARGV[3])
if mark then
  local seen = redis.call('GET', KEYS[7])
  if seen then
    local r = {}
    for v in string.gmatch(seen, '[^,]+') do r[#r + 1] = tonumber(v) end
    return r
  end
end
local s = tonumber(redis.call('GET', KEYS[1]) or '0')
local m = tonumber(redis.call('GET', KEYS[2]) or '0')
local d = tonumber(redis.call('GET', KEYS[3]) or '0')
local mo = tonumber(redis.call('GET', KEYS[4]) or '0')
local ft = redis.call('SCARD', KEYS[5])
local credit = 0
local function res(status, source, added)
  local r = {status, source, added, s, m, d, mo, ft, credit}
  if mark and status <= CAPPED then redis.call('SET', KEYS[7], table.concat(r, ','), 'EX', mark) end
  return r
end
local windows = perSecond > 0
if windows and s + 1 > perSecond then return res(SECOND, QUOTA, 0) end
if windows and m + 1 > perMinute then return res(MINUTE, QUOTA, 0) end
local add = 0
local held = 0
local status = OK
if hasDoc == 1 then
  if redis.call('SISMEMBER', KEYS[5], docId) == 0 then
    if ft >= cap then status = CAPPED else add = 1 end
  else
    held = redis.call('HEXISTS', KEYS[6], docId)
  end
end
-- A call that costs nothing is never refused for quota (an account past a lowered quota included).
if cost > 0 and d + cost > daily then return res(DAILY, QUOTA, 0) end
local source = QUOTA
local fromQuota = cost
if cost > 0 and mo + cost > monthly then
  if creditsAllowed ~= 1 then return res(MONTHLY, QUOTA, 0) end
  source = CREDITS
  fromQuota = math.max(0, math.min(cost, monthly - mo))
  credit = cost - fromQuota
end
if windows then
  s = redis.call('INCR', KEYS[1])
  if s == 1 then redis.call('EXPIRE', KEYS[1], a[9]) end
  m = redis.call('INCR', KEYS[2])
  if m == 1 then redis.call('EXPIRE', KEYS[2], a[10]) end
end
if status == CAPPED then return res(status, source, 0) end
if cost > 0 then
  d = redis.call('INCRBY', KEYS[3], cost)
  if d == cost then redis.call('EXPIRE', KEYS[3], a[11]) end
end
if fromQuota > 0 then
  mo = redis.call('INCRBY', KEYS[4], fromQuota)
  if mo == fromQuota then redis.call('EXPIRE', KEYS[4], a[12]) end
end
if add == 1 then
  ft = redis.call('SADD', KEYS[5], docId) + ft
  redis.call('EXPIRE', KEYS[5], a[11])
  redis.call('HSET', KEYS[6], docId, 2)
  redis.call('EXPIRE', KEYS[6], a[11])
  return res(status, source, ADDED)
end
if held == 1 then
  redis.call('HINCRBY', KEYS[6], docId, 2)
  return res(status, source, HELD)
end
return res(status, source, NONE)
`,
  7,
  { integerReply: true },
);

/** What a reserve took, read back from the keys and arguments it was sent with and its reply. */
export interface ReserveTaken {
  /** KEYS 3, 4, 5 and 6 of the reserve: day calls, month quota calls, day full-text set, its holders. */
  dayKey: string;
  monthKey: string;
  fullTextKey: string;
  holdersKey: string;
  cost: number;
  /** The quota's share of the cost (the rest were credit calls). */
  monthlyCalls: number;
  /** The document the reserve added to the day's full-text set or held there, if any. */
  doc?: { id: string; added: boolean };
}

/**
 * What a reserve took, from what it was sent (`[script, 7, ...KEYS, ...ARGV]`, as text) and its
 * reply; null when it took nothing (it refused) or the reply is not a reserve's. For a reply that
 * came after its caller gave up: nothing of the request has to be kept on the command for it.
 */
export function reserveTaken(reply: unknown, sent: readonly unknown[]): ReserveTaken | null {
  if (!Array.isArray(reply) || reply.length !== 9 || sent.length !== 12) return null;
  // capped took only rate slots, which are never given back.
  if (RESERVE_STATUS[reply[0] as number] !== 'ok') return null;
  const [dayKey, monthKey, fullTextKey, holdersKey, , numbers, docId] = sent.slice(4).map(String);
  const cost = Number.parseInt(numbers!, 10);
  if (!Number.isSafeInteger(cost)) return null;
  const taken: ReserveTaken = {
    dayKey: dayKey!,
    monthKey: monthKey!,
    fullTextKey: fullTextKey!,
    holdersKey: holdersKey!,
    cost,
    monthlyCalls: cost - Number(reply[8]),
  };
  const doc = RESERVE_DOC[reply[2] as number];
  if (doc === 'added' || doc === 'held') taken.doc = { id: docId!, added: doc === 'added' };
  return taken;
}

/**
 * refund: the marker (SET NX) makes it idempotent per request id. Counters are lowered only while
 * their key still exists and never below zero, so a late refund cannot recreate an expired window.
 *
 * KEYS: 1 day calls, 2 month quota calls, 3 day full-text set, 4 refund marker, 5 its holders
 * ARGV: 1 cost (day calls), 2 monthly calls (the quota's share of the cost), 3 the document: 0 none,
 *       1 added by this call, 2 held by it (RESERVE_DOC); 4 docId, 5 marker TTL
 * Returns 1 when applied, 0 when this request was already refunded.
 */
export const REFUND_SCRIPT = new LuaScript(
  `
if not redis.call('SET', KEYS[4], '1', 'NX', 'EX', ARGV[5]) then return 0 end
local function give(key, amount)
  if amount <= 0 then return end
  local v = tonumber(redis.call('GET', key) or '0')
  if v > 0 then redis.call('DECRBY', key, math.min(v, amount)) end
end
give(KEYS[1], tonumber(ARGV[1]))
give(KEYS[2], tonumber(ARGV[2]))
local role, doc = ARGV[3], ARGV[4]
if role == '1' or role == '2' then
  local v = tonumber(redis.call('HGET', KEYS[5], doc) or '-1')
  if v < 0 then
    if role == '1' then redis.call('SREM', KEYS[3], doc) end
  else
    v = v - 2
    if role == '1' then v = v + 1 end
    if v == 1 then
      redis.call('SREM', KEYS[3], doc)
      redis.call('HDEL', KEYS[5], doc)
    elseif v >= 0 then
      redis.call('HSET', KEYS[5], doc, v)
    end
  end
end
return 1
`,
  5,
  { integerReply: true },
);
