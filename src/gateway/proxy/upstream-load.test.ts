import request from 'supertest';
import { startHarness } from '../../../test/support/gateway-harness';
import type { Harness } from '../../../test/support/gateway-harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness((raw) => {
    raw.upstreams.upstreams.legal!.pool_size = 1;
    // Calls held by the stub (*_held) wait for the test, not for a deadline.
    raw.upstreams.upstreams.legal!.timeout_ms = 30_000;
  });
});
afterAll(() => h.close());

/** The value of one upstream's series in the scrape's text, or undefined when it has none. */
async function scraped(metric: string, upstream: string): Promise<number | undefined> {
  const text = await h.deps.metrics.registry.metrics();
  const m = new RegExp(`^${metric}\\{upstream="${upstream}"\\} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

const load = async (upstream: string) => [
  await scraped('lookup_upstream_connections_in_use', upstream),
  await scraped('lookup_upstream_queued_requests', upstream),
];

const until = async (what: () => boolean): Promise<void> => {
  while (!what()) await new Promise((r) => setTimeout(r, 10));
};

describe('upstream load on the scrape', () => {
  it("reads each upstream's connections in use and the calls waiting for one, then none once they are answered", async () => {
    const { key } = await h.account('pro');
    expect([await load('legal'), await load('directory')]).toEqual([
      [0, 0],
      [0, 0],
    ]);
    const held = () => h.stub.seen.filter((s) => s.path.endsWith('_held')).length;
    const calls = [1, 2, 3].map((n) =>
      request(h.gw.app)
        .get(`/v1/legal-documents/vb_${n}_held`)
        .set('X-Api-Key', key)
        .then((r) => r),
    );
    // One call on legal's one connection, two behind it (once through the pipeline's policies).
    await until(() => held() === 1);
    let now = await load('legal');
    while (now[1] !== 2) {
      await new Promise((r) => setTimeout(r, 10));
      now = await load('legal');
    }
    expect([now, held()]).toEqual([[1, 2], 1]);
    expect(await load('directory')).toEqual([0, 0]);
    for (let sent = 1; sent <= 3; sent++) {
      await until(() => held() === sent);
      h.stub.release();
    }
    const answers = await Promise.all(calls);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await load('legal')).toEqual([0, 0]);
  });
});
