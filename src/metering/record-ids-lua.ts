import { LuaScript } from './lua-script';

/**
 * The bulk watch's write for an account whose lock has ended: a call's record ids into today's
 * HyperLogLog, and the window's union counted. KEYS: today's key, the window's lock mark, then the
 * window's day keys. ARGV: the TTL in seconds (today's key's and the mark's), then the ids.
 * Reply {distinct, grew, marked}. Where a lock was set over the window (the mark lives, and is
 * given the TTL again, so it outlives every id it covers), grew is 1 only when the ids changed a
 * register of the union: a call that returns only records already taken in the window is told
 * apart from a harvest going on. Elsewhere grew says today's key changed, as the pipeline does.
 * The union is counted a second time only when today's key changed; PFADD goes by 1,000 ids, under
 * Lua's limit on what unpack may return.
 */
const LUA = `
local marked = redis.call('EXPIRE', KEYS[2], ARGV[1])
local before = 0
if marked == 1 then before = redis.call('PFCOUNT', unpack(KEYS, 3)) end
local changed = 0
for i = 2, #ARGV, 1000 do
  if redis.call('PFADD', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV))) == 1 then changed = 1 end
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
if marked == 1 and changed == 0 then return {before, 0, 1} end
local after = redis.call('PFCOUNT', unpack(KEYS, 3))
if marked == 0 then return {after, changed, 0} end
if after > before then return {after, 1, 1} end
return {after, 0, 1}
`;

/** One script object per number of day keys (a reload may change window_days); one text, one digest. */
const scripts = new Map<number, LuaScript>();

export function recordIdsScript(dayCount: number): LuaScript {
  let script = scripts.get(dayCount);
  if (!script) {
    script = new LuaScript(LUA, dayCount + 2, { integerReply: true });
    scripts.set(dayCount, script);
  }
  return script;
}
