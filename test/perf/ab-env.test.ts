/**
 * --ab's --b-env starts B with other environment variables: an empty value leaves one out, so that
 * `--b-env=REDIS_URL=` measures the gateway on in-process counters beside the one on Redis.
 */
import { envChanges, withEnv } from '../../bench/gateway-ab';

describe('the environment --b-env gives the B gateway', () => {
  const env = { REDIS_URL: 'redis://127.0.0.1:6379', DATABASE_URL: 'postgres://db/test', LOG_LEVEL: 'warn' };

  it('reads NAME=value pairs separated by commas, an empty value included', () => {
    expect(envChanges('REDIS_URL=,WORKERS=2')).toEqual({ REDIS_URL: '', WORKERS: '2' });
    expect(envChanges('A=x=y')).toEqual({ A: 'x=y' });
  });

  it('changes nothing when the flag is absent or empty', () => {
    expect(envChanges(undefined)).toBeUndefined();
    expect(envChanges('')).toBeUndefined();
    expect(withEnv(env, envChanges(undefined))).toEqual(env);
  });

  it('refuses an entry without a name and an equals sign instead of guessing', () => {
    expect(() => envChanges('REDIS_URL')).toThrow(/not NAME=value/);
    expect(() => envChanges('=x')).toThrow(/not NAME=value/);
  });

  it('leaves out a variable given an empty value and sets or replaces the others', () => {
    const b = withEnv(env, { REDIS_URL: '', LOG_LEVEL: 'info', WORKERS: '2' });
    expect(b).toEqual({ DATABASE_URL: 'postgres://db/test', LOG_LEVEL: 'info', WORKERS: '2' });
    expect(env.REDIS_URL).toBe('redis://127.0.0.1:6379'); // A's environment is untouched
  });
});
