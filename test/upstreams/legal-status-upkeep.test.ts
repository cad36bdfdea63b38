import request from 'supertest';
import { legalUpstream } from '../../src/upstreams/legal/legal-upstream';
import { ManualClock } from '../../src/util/clock';
import { TEST_DATABASES } from '../support/databases';
import { startUpstream } from './upstream-harness';
import type { Harness } from './upstream-harness';

const NOT_YET = 4;
const IN_EFFECT = 1;
/** 00:30 of a day in Vietnam (UTC+7), as epoch milliseconds. */
const vietnamHalfPastMidnight = (isoDay: string): number => Date.parse(`${isoDay}T00:30:00+07:00`);

describe.each(TEST_DATABASES)('legal upstream: documents come into effect on their day, on $name', (tdb) => {
  const clock = new ManualClock(Date.parse('2025-12-31T12:00:00+07:00'));
  let h: Harness;
  beforeAll(async () => {
    h = await startUpstream(tdb, legalUpstream, 0.05, clock);
  }, 120_000);
  afterAll(async () => {
    await h?.db.close();
  });
  const get = (path: string) => request(h.app).get(path);
  const statusOf = async (id: string): Promise<number> =>
    (await get(`/legal-documents/${id}`)).body.data.status.id as number;

  it('turns "not yet in effect" into "in effect" from 00:00 Vietnam time of the effective date, and not before', async () => {
    const pending = await h.db.query<{ id: string; day: string }>(
      `SELECT id, to_char(effective_date, 'YYYY-MM-DD') AS day FROM legal_documents
        WHERE status_id = $1 ORDER BY effective_date, id LIMIT 1`,
      [NOT_YET],
    );
    const first = pending.rows[0]!;
    // A second one, coming into effect ten days later.
    const later = (
      await h.db.query<{ id: string }>(
        `UPDATE legal_documents SET status_id = $1, effective_date = $2::date + 10
          WHERE id = (SELECT id FROM legal_documents WHERE status_id = $3 ORDER BY id LIMIT 1) RETURNING id`,
        [NOT_YET, first.day, IN_EFFECT],
      )
    ).rows[0]!;

    // 23:59 in Vietnam the day before, though already that day in UTC+8 and later zones.
    clock.set(vietnamHalfPastMidnight(first.day) - 31 * 60_000);
    expect(await statusOf(first.id)).toBe(NOT_YET);

    clock.set(vietnamHalfPastMidnight(first.day));
    expect(await statusOf(first.id)).toBe(IN_EFFECT);
    expect(await statusOf(later.id)).toBe(NOT_YET);
    const listed = await get(`/legal-documents?status_id=${NOT_YET}&per_page=1000`);
    const ids = (listed.body.data as { id: string }[]).map((d) => d.id);
    expect(ids).not.toContain(first.id);
    expect(ids).toContain(later.id);
    const inEffect = await get(
      `/legal-documents?status_id=${IN_EFFECT}&q=${encodeURIComponent(' ')}&per_page=1000`,
    );
    expect(inEffect.status).toBeLessThan(500);
  });

  it('leaves every other status alone, whatever its dates', async () => {
    const before = await h.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM legal_documents WHERE status_id NOT IN ($1, $2)',
      [NOT_YET, IN_EFFECT],
    );
    clock.set(Date.parse('2040-01-01T12:00:00+07:00'));
    await get('/legal-documents?status_id=1');
    const after = await h.db.query<{ n: number; pending: number }>(
      `SELECT count(*) FILTER (WHERE status_id NOT IN ($1, $2))::int AS n,
              count(*) FILTER (WHERE status_id = $1)::int AS pending FROM legal_documents`,
      [NOT_YET, IN_EFFECT],
    );
    expect(after.rows[0]).toEqual({ n: before.rows[0]!.n, pending: 0 });
  });
});
