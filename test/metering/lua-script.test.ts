import type { Command, Redis } from 'ioredis';
import { LuaScript } from '../../src/metering/lua-script';
import { createRedisClient, waitForReady } from '../../src/stores/redis-client';
import { TEST_REDIS_URL } from '../support/databases';

let redis: Redis;
beforeAll(async () => {
  redis = createRedisClient(TEST_REDIS_URL, { commandTimeoutMs: 2000 });
  await waitForReady(redis);
});
afterAll(async () => {
  await redis.quit();
});

/** What the parser handed each command, recorded as the command gets it. */
function recordParsed(): unknown[] {
  const parsed: unknown[] = [];
  const send = redis.sendCommand.bind(redis);
  jest.spyOn(redis, 'sendCommand').mockImplementation((command: Command) => {
    const resolve = command.resolve.bind(command);
    command.resolve = (value) => {
      parsed.push(value);
      return resolve(value);
    };
    return send(command);
  });
  return parsed;
}

afterEach(() => jest.restoreAllMocks());

describe('LuaScript replies', () => {
  it('hands an integer reply on as a copy of the array the parser made, with the same elements', async () => {
    // A fresh script each run: the first call also goes through EVAL after NOSCRIPT.
    const script = new LuaScript(`return {1, 2, tonumber(ARGV[1]), ${Date.now()}}`, 1, {
      integerReply: true,
    });
    const parsed = recordParsed();
    for (let i = 0; i < 2; i++) {
      const reply = await script.run(redis, ['k'], [7 + i]);
      const last = parsed[parsed.length - 1];
      expect(reply).toEqual(last);
      expect(reply).not.toBe(last);
      expect((reply as unknown[])[2]).toBe(7 + i);
    }
  });

  it('decodes a text reply into strings, as ioredis does', async () => {
    const script = new LuaScript("return {'ok', ARGV[1]}", 0);
    await expect(script.run(redis, [], ['été'])).resolves.toEqual(['ok', 'été']);
  });

  it('passes a scalar integer reply on as it is', async () => {
    const script = new LuaScript('return 41 + tonumber(ARGV[1])', 0, { integerReply: true });
    await expect(script.run(redis, [], [1])).resolves.toBe(42);
  });
});
