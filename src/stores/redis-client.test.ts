import { Cluster, Redis } from 'ioredis';
import { connectRedis, waitForReady } from './redis-client';
import type { RedisClient } from './redis-client';
import { TEST_REDIS_URL } from '../../test/support/databases';

const opened: RedisClient[] = [];
// These tests read how a URL is taken, not a connection: nothing connects, so nothing is left to close.
const open = (url: string): RedisClient => {
  const c = connectRedis(url, { maxBackoffMs: 50, lazyConnect: true });
  opened.push(c);
  return c;
};
afterEach(() => {
  for (const c of opened.splice(0)) c.disconnect();
});

describe('REDIS_URL', () => {
  it('takes one redis:// URL as a single node', () => {
    expect(open('redis://127.0.0.1:6399')).toBeInstanceOf(Redis);
  });

  it('connects at once unless asked to wait for the first command', async () => {
    const eager = connectRedis(TEST_REDIS_URL, { maxBackoffMs: 50 });
    opened.push(eager);
    expect(eager.status).toBe('connecting');
    await waitForReady(eager);
    expect(open(TEST_REDIS_URL).status).toBe('wait');
  });

  it('takes a comma-separated list of URLs as the seed nodes of a Redis Cluster', () => {
    const c = open('redis://127.0.0.1:7001, redis://[::1]:7002,redis://10.0.0.3');
    expect(c).toBeInstanceOf(Cluster);
    expect((c as Cluster)['startupNodes']).toEqual([
      { host: '127.0.0.1', port: 7001 },
      { host: '::1', port: 7002 },
      { host: '10.0.0.3', port: 6379 },
    ]);
  });

  it('takes redis+cluster:// for one cluster address, with the credentials and TLS of rediss+cluster://', () => {
    expect(open('redis+cluster://cfg.example:6380')).toBeInstanceOf(Cluster);
    const tls = open('rediss+cluster://u:p%40ss@cfg.example:6380') as Cluster;
    expect(tls.options.redisOptions).toMatchObject({ username: 'u', password: 'p@ss', tls: {} });
  });
});

describe('REDIS_URL: errors', () => {
  it('refuses what is not a redis address, naming the value', () => {
    expect(() => connectRedis('http://127.0.0.1:6379,redis://x')).toThrow(
      /REDIS_URL: "http:\/\/127.0.0.1:6379"/,
    );
    expect(() => connectRedis('redis://a:1,not a url')).toThrow(/REDIS_URL: "not a url" is not a URL/);
  });

  it('names an address it cannot read without its credentials', () => {
    const read = () => connectRedis('redis://user:s3cret@bad host:6379');
    expect(read).toThrow(/REDIS_URL: "redis:\/\/…@bad host:6379" is not a URL/);
    expect(read).not.toThrow(/s3cret/);
  });
});
