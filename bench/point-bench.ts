// npm run bench:point [-- <lookups>] [--pg]
// Point lookup latency of the admin-units upstream (target p95 ≤ 5 ms per lookup). Loads the real
// data into PGlite in memory (or, with --pg, into schema bench_admin_units of the PostgreSQL at
// TEST_DATABASE_URL or DATABASE_URL, reused when already loaded), then times, for the same points:
//   index — BoundaryIndex.codesAt in process (R-tree + point-in-polygon), ward and province;
//   kit   — the upstream's list code in process (listRecords: point resolved in the index, then
//           the page and the exact count in SQL), as a request runs it minus HTTP;
//   http  — GET /ward-boundaries?point=… and /province-boundaries?point=… on the upstream over a
//           keep-alive connection, one at a time: parsing, index, SQL for the page and the count, JSON.
// Points: a fixed pseudo-random mix of places in random wards' boxes (mostly on land) and anywhere in
// Vietnam's box (much of it sea), plus the three city centres of the tests. Prints JSON.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import type { Db } from '../src/db/db';
import { migrate } from '../src/db/migrate';
import { openPgDb } from '../src/db/pg-db';
import { openPgliteDb } from '../src/db/pglite-db';
import { listRecords } from '../src/upstream-kit';
import type { DatasetSpec, LatLng } from '../src/upstream-kit';
import { boundaryDatasets } from '../src/upstreams/admin-units/admin-units-datasets';
import { adminUnitsUpstream } from '../src/upstreams/admin-units/admin-units-upstream';
import { loadBoundaries } from '../src/upstreams/admin-units/boundary-index';
import { silentLogger } from '../src/util/logger';

const args = process.argv.slice(2);
const USE_PG = args.includes('--pg');
const LOOKUPS = Number(args.find((a) => /^\d+$/.test(a)) ?? 2000);
const WARMUP = 200;
const PG_URL =
  process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Stats {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000;

function stats(times: number[]): Stats {
  const s = [...times].sort((a, b) => a - b);
  const pct = (p: number): number => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0;
  return {
    n: s.length,
    p50: round(pct(50)),
    p95: round(pct(95)),
    p99: round(pct(99)),
    max: round(s.at(-1) ?? 0),
  };
}

/** mulberry32: the same points on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function points(db: Db, n: number): Promise<LatLng[]> {
  const boxes = (
    await db.query<{ b: number[] }>(
      'SELECT ARRAY[min_lng, min_lat, max_lng, max_lat]::float8[] AS b FROM admin_wards',
    )
  ).rows.map((r) => r.b.map(Number));
  const next = rng(20250701);
  const out: LatLng[] = [
    { lat: 21.0285, lng: 105.8542 },
    { lat: 10.7769, lng: 106.7009 },
    { lat: 16.0544, lng: 108.2022 },
  ];
  while (out.length < n) {
    if (next() < 0.75) {
      const [x0, y0, x1, y1] = boxes[Math.floor(next() * boxes.length)]!;
      out.push({ lat: y0! + next() * (y1! - y0!), lng: x0! + next() * (x1! - x0!) });
    } else out.push({ lat: 8.4 + next() * (23.4 - 8.4), lng: 102.1 + next() * (117.9 - 102.1) });
  }
  return out.map((p) => ({ lat: Number(p.lat.toFixed(6)), lng: Number(p.lng.toFixed(6)) }));
}

function timeSync(n: number, fn: (i: number) => void): number[] {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    fn(i);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return times;
}

async function timeKit(db: Db, spec: DatasetSpec, pts: LatLng[]): Promise<number[]> {
  const run = (p: LatLng) => listRecords(db, spec, { point: `${p.lat},${p.lng}`, page: '1', per_page: '20' });
  for (const p of pts.slice(0, WARMUP)) await run(p);
  const times: number[] = [];
  for (const p of pts) {
    const t = process.hrtime.bigint();
    await run(p);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return times;
}

async function timeHttp(
  base: string,
  path: string,
  pts: LatLng[],
): Promise<{ times: number[]; found: number }> {
  const get = async (p: LatLng): Promise<number> => {
    const r = await fetch(`${base}/${path}?point=${p.lat},${p.lng}&page=1&per_page=20`);
    if (r.status !== 200) throw new Error(`${path} ${p.lat},${p.lng}: ${r.status} ${await r.text()}`);
    return ((await r.json()) as { total: number }).total;
  };
  for (const p of pts.slice(0, WARMUP)) await get(p);
  const times: number[] = [];
  let found = 0;
  for (const p of pts) {
    const t = process.hrtime.bigint();
    if ((await get(p)) > 0) found++;
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return { times, found };
}

async function main(): Promise<void> {
  const db = USE_PG
    ? await openPgDb({ connectionString: PG_URL, schema: 'bench_admin_units', max: 4 })
    : await openPgliteDb();
  try {
    for (const set of adminUnitsUpstream.migrationSets) await migrate(db, set);
    let t = Date.now();
    await adminUnitsUpstream.seed(db, {});
    const seedMs = Date.now() - t;
    t = Date.now();
    const idx = await loadBoundaries(db);
    const indexMs = Date.now() - t;
    const pts = await points(db, LOOKUPS);

    timeSync(WARMUP, (i) => idx.wards.codesAt(pts[i % pts.length]!));
    let landWards = 0;
    const wardIdx = timeSync(pts.length, (i) => {
      if (idx.wards.codesAt(pts[i]!).length > 0) landWards++;
    });
    const provinceIdx = timeSync(pts.length, (i) => idx.provinces.codesAt(pts[i]!));

    const [provinceSpec, wardSpec] = boundaryDatasets(() => Promise.resolve(idx));
    const wardKit = await timeKit(db, wardSpec!, pts);
    const provinceKit = await timeKit(db, provinceSpec!, pts);

    const server = createServer(adminUnitsUpstream.createApp({ db, logger: silentLogger() }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const loadBefore = loadavg()[0];
    const wardHttp = await timeHttp(base, 'ward-boundaries', pts);
    const provinceHttp = await timeHttp(base, 'province-boundaries', pts);
    await new Promise<void>((r) => server.close(() => r()));

    const report = {
      database: db.kind,
      lookups: pts.length,
      points_in_a_ward: landWards,
      seed_ms: seedMs,
      index_build_ms: indexMs,
      index_entries: { provinces: idx.provinces.size, wards: idx.wards.size },
      index_ms: { ward: stats(wardIdx), province: stats(provinceIdx) },
      kit_ms: { 'ward-boundaries': stats(wardKit), 'province-boundaries': stats(provinceKit) },
      http_ms: {
        'ward-boundaries': { ...stats(wardHttp.times), found: wardHttp.found },
        'province-boundaries': { ...stats(provinceHttp.times), found: provinceHttp.found },
      },
      load_1m: [loadBefore, loadavg()[0]],
      node: process.version,
    };
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  } finally {
    await db.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
