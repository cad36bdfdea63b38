/**
 * The bench's upstream stub keeps idle connections for longer than a whole run, so that no proxy's
 * pool closes a burst of them inside another target's measured window (step 30 of the doc).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { STUB_KEEP_ALIVE_S, startUpstreamStub } from '../../bench/upstream-stub';

/** A whole `npm run bench -- --rounds=5`, closed loop, open loop and (e), takes about 9 minutes. */
const LONGEST_RUN_S = 540;
/** undici closes an idle connection this long before the server's announced keep-alive ends. */
const UNDICI_MARGIN_S = 2;

describe("the bench's upstream stub keeps idle connections for the whole run", () => {
  let stub: Server;
  let pool: Pool;

  beforeAll(async () => {
    stub = await startUpstreamStub('127.0.0.1', 0);
    pool = new Pool(`http://127.0.0.1:${(stub.address() as AddressInfo).port}`, { connections: 1 });
  });

  afterAll(async () => {
    await pool.close();
    stub.closeAllConnections();
    await new Promise((resolve) => stub.close(resolve));
  });

  it('announces a keep-alive that outlasts a run, less what undici takes off', async () => {
    const res = await pool.request({ method: 'GET', path: '/v1/legal-documents?q=luat' });
    await res.body.text();
    const announced = /timeout=(\d+)/.exec(String(res.headers['keep-alive']))?.[1];
    expect(Number(announced)).toBe(STUB_KEEP_ALIVE_S);
    expect(STUB_KEEP_ALIVE_S - UNDICI_MARGIN_S).toBeGreaterThan(LONGEST_RUN_S);
  });
});
