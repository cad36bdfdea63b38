import request from 'supertest';
import { migrate } from '../../src/db/migrate';
import { adminUnitsUpstream } from '../../src/upstreams/admin-units/admin-units-upstream';
import { silentLogger } from '../../src/util/logger';
import { TEST_DATABASES } from '../support/databases';
import { recordingDb } from '../support/recording-db';

describe('the admin-units upstream at start', () => {
  it('loads its reference data and boundary index on the setup database, not on the one under the requests deadline', async () => {
    const db = await TEST_DATABASES[0]!.open();
    try {
      for (const set of adminUnitsUpstream.migrationSets) await migrate(db, set);
      const served: string[] = [];
      const setup: string[] = [];
      const app = adminUnitsUpstream.createApp({
        db: recordingDb(db, served),
        setupDb: recordingDb(db, setup),
        logger: silentLogger(),
      });
      // Ready once the index is built.
      for (let t0 = Date.now(); (await request(app).get('/healthz')).status !== 200;)
        if (Date.now() - t0 > 60_000) throw new Error('not ready in 60 s');
      expect(setup.some((sql) => /geometry/i.test(sql))).toBe(true);
      expect(served.filter((sql) => /geometry|INSERT/i.test(sql))).toEqual([]);
      const r = await request(app).get('/provinces?code=01');
      expect([r.status, r.body.total]).toEqual([200, 1]);
    } finally {
      await db.close();
    }
  }, 120_000);
});
