import { LuaScript } from './lua-script';

/**
 * The bulk watch's write: a call's record ids into today's HyperLogLog, and the window's union
 * counted. KEYS: today's key, then the window's day keys. ARGV: today's TTL in seconds, then the
 * ids. Reply {distinct, grew}: grew is 1 when the ids changed a register of the union, so a call
 * that returns only records already taken in the window is told apart from a harvest going on.
 * The union is counted a second time only when today's key changed; PFADD goes by 1,000 ids, under
 * Lua's limit on what unpack may return.
 */
const LUA = `
local before = redis.call('PFCOUNT', unpack(KEYS, 2))
local changed = 0
for i = 2, #ARGV, 1000 do
  if redis.call('PFADD', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV))) == 1 then changed = 1 end
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
if changed == 0 then return {before, 0} end
local after = redis.call('PFCOUNT', unpack(KEYS, 2))
if after > before then return {after, 1} end
return {after, 0}
`;

/** One script object per number of day keys (a reload may change window_days); one text, one digest. */
const scripts = new Map<number, LuaScript>();

export function recordIdsScript(dayCount: number): LuaScript {
  let script = scripts.get(dayCount);
  if (!script) {
    script = new LuaScript(LUA, dayCount + 1, { integerReply: true });
    scripts.set(dayCount, script);
  }
  return script;
}
