import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStubUpstream } from '../support/stub-upstream';
import {
  ADMIN_SECRET,
  apiGet,
  createE2eSchema,
  newAccount,
  pointUpstreamsAt,
  spawnProduct,
  startProductProcess,
  tempConfig,
} from './product-process';
import type { E2eSchema } from './product-process';

// One replica on PostgreSQL with REDIS_URL unset (DESIGN §5: in-process counters, single replica
// only), restarted as a deploy or a crash restarts it.

describe('a gateway on PostgreSQL without Redis', () => {
  let schema: E2eSchema;
  let stub: Awaited<ReturnType<typeof startStubUpstream>>;
  const dataDir = mkdtempSync(join(tmpdir(), 'lk-no-redis-'));

  beforeAll(async () => {
    schema = await createE2eSchema();
    stub = await startStubUpstream('127.0.0.2');
  }, 60_000);

  afterAll(async () => {
    await stub?.close();
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the usage counted before a restart (the month, the day, the full-text documents), and no second gateway shares them', async () => {
    const env = {
      CONFIG_DIR: tempConfig((docs) => pointUpstreamsAt(docs, stub.url)),
      DATABASE_URL: schema.databaseUrl,
      DATA_DIR: join(dataDir, 'not-yet-made'),
      ADMIN_JWT_SECRET: ADMIN_SECRET,
      LOG_LEVEL: 'info',
    };
    const first = await startProductProcess(env);
    let key = '';
    try {
      key = (await newAccount(first, 'starter')).key;
      expect((await apiGet(first, '/v1/legal-documents?q=luat', key)).status).toBe(200);
      expect((await apiGet(first, '/v1/legal-documents/vb_1', key)).status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const again = await startProductProcess(env);
    try {
      // A second gateway on the same DATA_DIR would replace these counts with its own.
      const second = spawnProduct(env);
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain(
        `the usage counters in ${env.DATA_DIR} are kept by process ${again.child.pid}`,
      );
      const me = await apiGet(again, '/v1/me', key);
      expect((me.body.data as { quota: Record<string, number> }).quota).toMatchObject({
        monthly_used: 2,
        daily_used: 2,
        full_text_used_today: 1,
      });
    } finally {
      await again.stop();
    }
  }, 180_000);
});
