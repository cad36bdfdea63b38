import { readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { PrivateRedis } from '../support/private-redis';
import { startStubUpstream } from '../support/stub-upstream';
import {
  ADMIN_SECRET,
  apiGet,
  newAccount,
  pointUpstreamsAt,
  startProductProcess,
  tempConfig,
} from './product-process';
import type { ProductProcess } from './product-process';

// One gateway on PGlite with a private Redis and an external stub upstream, both of which the
// tests take away and bring back.
let redis: PrivateRedis;
let stub: Awaited<ReturnType<typeof startStubUpstream>>;
// The readiness test's replacement upstream: a second stub behind a relay on the first one's address.
let again: Awaited<ReturnType<typeof startStubUpstream>> | undefined;
let relay: Server | undefined;
let configDir: string;
let p: ProductProcess;
let key: string;
let keyId: string;

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ready = async () => (await fetch(`${p.admin}/readyz`)).status;
const checks = async () =>
  ((await (await fetch(`${p.admin}/readyz`)).json()) as { checks: Record<string, boolean> }).checks;
async function until(fn: () => boolean | Promise<boolean>, ms = 20_000): Promise<boolean> {
  for (const t0 = Date.now(); Date.now() - t0 < ms; await wait(200)) if (await fn()) return true;
  return false;
}

beforeAll(async () => {
  redis = await PrivateRedis.start();
  stub = await startStubUpstream('127.0.0.2');
  configDir = tempConfig((docs) => {
    pointUpstreamsAt(docs, stub.url);
  });
  p = await startProductProcess({
    CONFIG_DIR: configDir,
    REDIS_URL: redis.url,
    ADMIN_JWT_SECRET: ADMIN_SECRET,
  });
  ({ key, keyId } = await newAccount(p, 'pro'));
}, 180_000);

afterAll(async () => {
  await p?.stop('SIGKILL');
  await redis?.kill();
  await stub?.close();
  await again?.close();
  const server = relay;
  if (server) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

describe('metrics and logs', () => {
  it('counts known traffic by dataset, status, code and plan', async () => {
    for (let i = 0; i < 3; i++) expect((await apiGet(p, '/v1/bailiff-offices?q=van', key)).status).toBe(200);
    expect((await apiGet(p, '/v1/bailiff-offices?q=van')).status).toBe(401);
    expect((await apiGet(p, '/v1/bailiff-offices/tc_missing', key)).status).toBe(404);
    const text = await (await fetch(`${p.admin}/metrics`)).text();
    expect(text).toContain(
      'lookup_http_requests_total{dataset="bailiff-offices",status="200",code="ok",plan="pro"} 3',
    );
    expect(text).toContain(
      'lookup_http_requests_total{dataset="bailiff-offices",status="401",code="unauthorized",plan="none"} 1',
    );
    expect(text).toContain(
      'lookup_http_requests_total{dataset="bailiff-offices",status="404",code="not_found",plan="pro"} 1',
    );
    expect(text).toMatch(
      /lookup_http_request_duration_seconds_bucket\{le="[^"]+",dataset="bailiff-offices"\} \d+/,
    );
    expect(text).toMatch(/lookup_upstream_request_duration_seconds_count\{upstream="directory"\} 4/);
    expect(text).toMatch(/lookup_quota_reservations_total\{result="quota"\} \d+/);
    expect(text).toMatch(/lookup_key_cache_lookups_total\{result="hit"\} \d+/);
    expect(text).toMatch(/process_resident_memory_bytes \d+/);
  });

  it('writes one JSON log line per request with request id, account, key id, dataset, status and timings, never the key', async () => {
    await apiGet(p, '/v1/bailiff-offices?q=van', key, { 'x-request-id': 'log-check-1' });
    await apiGet(p, '/v1/bailiff-offices/tc_missing', key, { 'x-request-id': 'log-check-2' });
    await apiGet(p, '/v1/bailiff-offices?q=van&page=x', key, { 'x-request-id': 'log-check-3' });
    // Lines are written in batches (up to 100 ms after the response) and then cross a pipe, so a
    // loaded machine can take longer: wait for the line rather than for a fixed time.
    const find = (id: string) =>
      p
        .output()
        .split('\n')
        .find((l) => l.includes(`"${id}"`));
    await until(() => find('log-check-3') !== undefined, 5000);
    const line = find('log-check-1');
    expect(line).toBeDefined();
    const entry = JSON.parse(line!) as Record<string, unknown>;
    expect(entry).toMatchObject({
      req_id: 'log-check-1',
      dataset: 'bailiff-offices',
      status: 200,
      plan: 'pro',
      account_id: expect.stringMatching(/^acc_/),
      key_id: keyId,
    });
    // Which id was unknown, and which parameter was refused.
    expect(JSON.parse(find('log-check-2')!)).toMatchObject({ status: 404, id: 'tc_missing' });
    expect(JSON.parse(find('log-check-3')!)).toMatchObject({ status: 422, param: 'page' });
    expect(typeof entry.time).toBe('number');
    expect(typeof entry.duration_ms).toBe('number');
    expect(typeof entry.upstream_ms).toBe('number');
    expect(p.output()).not.toContain(key);
  });
});

describe('readiness', () => {
  it('reports an upstream that went away and came back, staying ready so the API answers 503 search_unavailable', async () => {
    expect(await ready()).toBe(200);
    const url = new URL(stub.url);
    await stub.close();
    expect(await until(async () => (await checks()).upstreams === false)).toBe(true);
    expect(await ready()).toBe(200);
    const res = await apiGet(p, '/v1/bailiff-offices?q=van', key);
    expect([res.status, res.body.code]).toEqual([503, 'search_unavailable']);
    // The failure is counted by upstream and reason (the health poll alone would not tell it).
    expect(await (await fetch(`${p.admin}/metrics`)).text()).toMatch(
      /^lookup_upstream_failures_total\{upstream="directory",reason="network"\} [1-9]/m,
    );
    // back on the same address
    const next = await startStubUpstream('127.0.0.2');
    again = next;
    const server = createServer((req, res) => {
      void fetch(`${next.url}${req.url}`).then(async (r) => {
        res.writeHead(r.status, { 'content-type': 'application/json' });
        res.end(await r.text());
      });
    });
    relay = server;
    await new Promise<void>((r) => server.listen(Number(url.port), '127.0.0.2', () => r()));
    expect(await until(async () => (await checks()).upstreams === true)).toBe(true);
    expect((await fetch(`${p.admin}/healthz`)).status).toBe(200);
  });

  it('reports the counter store gone and back, staying ready under store_failure open, without a 5xx on the API', async () => {
    await redis.kill();
    expect(await until(async () => (await checks()).counters === false)).toBe(true);
    expect(await ready()).toBe(200);
    expect((await apiGet(p, '/v1/bailiff-offices?q=van', key)).status).toBe(200);
    await redis.restart();
    expect(await until(async () => (await checks()).counters === true)).toBe(true);
  });
});

describe('hot configuration reload', () => {
  it('picks up a change of CONFIG_DIR without restart, and refuses a broken one keeping the old', async () => {
    const pro = (await newAccount(p, 'pro')).key;
    expect(
      ((await apiGet(p, '/v1/bailiff-offices?per_page=500', pro)).body.meta as { per_page: number }).per_page,
    ).toBe(100);
    const plansFile = join(configDir, 'plans.yaml');
    const original = readFileSync(plansFile, 'utf8');
    writeFileSync(plansFile, original.replace('per_page_max: 100,', 'per_page_max: 7,'));
    expect(
      await until(
        async () =>
          ((await apiGet(p, '/v1/bailiff-offices?per_page=500', pro)).body.meta as { per_page: number })
            .per_page === 7,
      ),
    ).toBe(true);

    writeFileSync(plansFile, original.replace('per_page_max: 100,', 'per_page_max: "many",'));
    // The refusal is logged once the file has been read; the running plans must be unchanged after it.
    expect(await until(() => p.output().includes('configuration reload refused'))).toBe(true);
    expect(
      ((await apiGet(p, '/v1/bailiff-offices?per_page=500', pro)).body.meta as { per_page: number }).per_page,
    ).toBe(7);
    expect(p.output()).toContain('plans.yaml');
    expect(await (await fetch(`${p.admin}/metrics`)).text()).toMatch(/^lookup_config_reload_failing 1$/m);
    // /readyz says so, and stays 200: a bad edit refused everywhere must not empty the Service.
    expect([await ready(), (await checks()).config]).toEqual([200, false]);
    writeFileSync(plansFile, original);
    expect(
      await until(
        async () =>
          ((await apiGet(p, '/v1/bailiff-offices?per_page=500', pro)).body.meta as { per_page: number })
            .per_page === 100,
      ),
    ).toBe(true);
    const metrics = await (await fetch(`${p.admin}/metrics`)).text();
    expect(metrics).toMatch(/lookup_config_reloads_total\{result="failure"\} [1-9]/);
    expect(metrics).toMatch(/lookup_config_reloads_total\{result="success"\} [1-9]/);
    expect(metrics).toMatch(/^lookup_config_reload_failing 0$/m);
    expect((await checks()).config).toBe(true);
  });
});

interface LogLine {
  level: number;
  msg: string;
  origin?: string;
  err?: { type: string; message: string; stack: string };
}

describe('a fault nobody handles', () => {
  it.each([
    [
      'reject',
      'unhandledRejection',
      'unhandled promise rejection: exiting',
      'a rejection nobody handles (test)',
    ],
    ['throw', 'uncaughtException', 'uncaught exception: exiting', 'an exception nobody catches (test)'],
  ])(
    'ends the process with exit 1 after one fatal JSON line naming the error (%s), so the restart has a logged cause',
    async (fault, origin, msg, message) => {
      // A second product on the same stub, with in-memory counters: this one is meant to die.
      const doomed = await startProductProcess(
        { CONFIG_DIR: configDir, ADMIN_JWT_SECRET: ADMIN_SECRET, TEST_FAULT: fault },
        120_000,
        ['--import', join(__dirname, 'fault-on-signal.ts')],
      );
      try {
        expect((await apiGet(doomed, '/v1/me')).status).toBe(401); // it serves before the fault
        doomed.child.kill('SIGUSR2');
        expect(await doomed.exited).toBe(1);
        const stdout = doomed
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'));
        const fatal = stdout.map((l) => JSON.parse(l) as LogLine).filter((e) => e.level === 60);
        expect(fatal).toHaveLength(1);
        expect(fatal[0]).toMatchObject({ msg, origin, err: { type: 'Error', message } });
        expect(fatal[0]!.err?.stack).toContain('fault-on-signal.ts');
      } finally {
        if (doomed.child.exitCode === null) await doomed.stop('SIGKILL');
      }
    },
    150_000,
  );
});

describe('graceful shutdown', () => {
  it('exits at once with 130 on a second SIGINT during the drain, as Ctrl-C pressed twice asks', async () => {
    const hurried = await startProductProcess({ CONFIG_DIR: configDir, ADMIN_JWT_SECRET: ADMIN_SECRET });
    // A request whose head never ends holds the drain until shutdown_timeout_ms (10 s).
    const stuck = connect(Number(new URL(hurried.base).port), '127.0.0.1', () =>
      stuck.write('GET /v1/me HTTP/1.1\r\nHost: x\r\n'),
    );
    stuck.on('error', () => undefined);
    try {
      await new Promise((r) => stuck.once('connect', r));
      hurried.child.kill('SIGINT');
      expect(await until(() => hurried.output().includes('"shutting down'))).toBe(true);
      await new Promise((r) => setTimeout(r, 300));
      expect(hurried.child.exitCode).toBeNull(); // still draining
      const second = Date.now();
      // Timed to the process's exit: `exited` also waits for its output to close.
      const exit = once(hurried.child, 'exit');
      hurried.child.kill('SIGINT');
      await exit;
      expect(Date.now() - second).toBeLessThan(3000);
      expect(await hurried.exited).toBe(130);
      expect(hurried.output()).toContain('second interrupt: exiting without waiting for the drain');
    } finally {
      stuck.destroy();
      if (hurried.child.exitCode === null) await hurried.stop('SIGKILL');
    }
  }, 150_000);

  it('finishes requests in flight on SIGTERM, refuses new connections, answers probes and scrapes unready meanwhile, and exits 0', async () => {
    const upstream = again ?? stub;
    const inflight = Array.from({ length: 5 }, (_, i) => apiGet(p, `/v1/legal-documents/vb_${i}_held`, key));
    // In flight means at the upstream (which holds them until released below, however slow the
    // machine is at the probes meanwhile), not merely sent by this process.
    const heldSeen = () => upstream.seen.filter((s) => s.path.endsWith('_held')).length;
    expect(await until(() => heldSeen() === 5)).toBe(true);
    p.child.kill('SIGTERM');
    expect(await until(() => p.output().includes('"shutting down'))).toBe(true);
    // The admin port outlives the public one's drain: unready (and why), alive, still scraped.
    const probe = await fetch(`${p.admin}/readyz`);
    expect([
      probe.status,
      ((await probe.json()) as { checks: { accepting: boolean } }).checks.accepting,
    ]).toEqual([503, false]);
    expect((await fetch(`${p.admin}/healthz`)).status).toBe(200);
    expect((await fetch(`${p.admin}/metrics`)).status).toBe(200);
    // While the five are still draining, a new connection is refused.
    const fresh = await new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(p.base).port), '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    expect(fresh).toBe('ECONNREFUSED');
    upstream.release();
    const results = await Promise.all(inflight);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await p.exited).toBe(0);
    expect(p.output()).toMatch(/"msg":"stopped"/);
    // The drained requests' log lines are still in the output's batch when the process exits.
    const lines = p.output().split('\n');
    const after = lines.slice(lines.findIndex((l) => l.includes('"shutting down')));
    expect(after.filter((l) => l.includes('"msg":"request"') && l.includes('"status":200'))).toHaveLength(5);
  }, 30_000);
});
