import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createNetServer } from 'node:net';
import type { Server } from 'node:net';
import { configWithFreePorts, freePort, spawnProduct } from './product-process';

/** Runs the product to its failed start: exit 1, no stack trace; its fatal lines' messages. */
const fatalOf = async (env: Record<string, string>, args: string[] = []): Promise<string[]> => {
  const run = spawnProduct(env, [], args);
  expect(await run.exited).toBe(1);
  expect(run.output()).not.toContain('    at ');
  return run
    .output()
    .split('\n')
    .filter((l) => l.includes('"level":60'))
    .map((l) => (JSON.parse(l) as { msg: string }).msg);
};

// `npm start` with a variable of DESIGN §5 that cannot be right: it must not start on a default.
describe('a wrong environment variable at start', () => {
  it.each([
    ['PORT', 'abc', 'must be a TCP port, a whole number from 0 to 65535'],
    ['LOG_LEVEL', 'bogus', 'must be one of fatal, error, warn, info, debug, trace, silent'],
  ])(
    'stops with exit 1 and one JSON fatal line naming %s=%s and what it must be',
    async (variable, value, reason) => {
      const run = spawnProduct({ [variable]: value });
      expect(await run.exited).toBe(1);
      const lines = run
        .output()
        .split('\n')
        .filter((l) => l.trim() !== '');
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        level: 60,
        variable,
        reason,
        msg: `invalid environment: ${variable} ${reason}`,
      });
      expect(run.output()).not.toContain('lookup api started');
    },
    60_000,
  );
});

describe('a start outside the embedded default without admin auth', () => {
  it.each([
    ['DATABASE_URL', 'postgres://postgres@127.0.0.1:1/nowhere'],
    ['REDIS_URL', 'redis://127.0.0.1:1'],
  ])(
    'stops with exit 1 and one line naming ADMIN_JWT_SECRET, with %s set, before connecting to anything',
    async (variable, value) => {
      const t0 = Date.now();
      const msgs = await fatalOf({ [variable]: value });
      expect(msgs).toEqual([
        `invalid environment: ADMIN_JWT_SECRET must be set, or ADMIN_JWKS_URL, with ${variable} set (outside the embedded default no admin secret is generated)`,
      ]);
      // Not after a connection's timeout or a migration: at the start, as any other bad variable.
      expect(Date.now() - t0).toBeLessThan(20_000);
    },
    60_000,
  );
});

// A port the product must take, taken by another process: one line naming the setting, no stack.
describe('a port in use at start', () => {
  let holder: Server;
  let taken: number;
  beforeAll(async () => {
    taken = await freePort();
    holder = createNetServer();
    await new Promise<void>((r) => holder.listen(taken, '127.0.0.1', () => r()));
  });
  afterAll(() => new Promise<void>((r) => holder.close(() => r())));

  it('names PORT for the public port', async () => {
    const msgs = await fatalOf({ PORT: String(taken), CONFIG_DIR: await configWithFreePorts() });
    expect(msgs).toEqual([
      `failed to start: port ${taken} (PORT, or gateway.yaml port) is in use by another process`,
    ]);
  }, 90_000);

  it("names the upstream's url for a built-in upstream's port", async () => {
    const configDir = await configWithFreePorts((docs) =>
      docs.upstreams.setIn(['upstreams', 'directory', 'url'], `http://127.0.0.1:${taken}`),
    );
    const msgs = await fatalOf({ CONFIG_DIR: configDir, PORT: '0', ADMIN_PORT: '0' });
    expect(msgs).toEqual([
      `failed to start: 127.0.0.1:${taken} (upstreams.directory.url) is in use by another process`,
    ]);
  }, 90_000);

  it('names PORT for a built-in upstream run as its own process', async () => {
    const msgs = await fatalOf({ PORT: String(taken) }, ['upstream', 'directory']);
    expect(msgs).toEqual([`failed to start: port ${taken} (PORT) is in use by another process`]);
  }, 90_000);
});

// DATA_DIR a file, or under one: one line naming the variable and why, no stack.
describe('a DATA_DIR that cannot be used', () => {
  it('stops with exit 1 and one fatal line naming DATA_DIR, for a file and for a path under one', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'lk-file-')), 'plain-file');
    writeFileSync(file, 'not a directory');
    for (const [dir, why] of [
      [file, 'not a directory'],
      [join(file, 'var'), 'mkdir'],
    ] as const) {
      const fatal = await fatalOf({ DATA_DIR: dir, CONFIG_DIR: await configWithFreePorts() });
      expect(fatal).toEqual([expect.stringContaining(`failed to start: DATA_DIR ${dir} cannot be used: `)]);
      expect(fatal[0]).toContain(why);
    }
  }, 90_000);
});
