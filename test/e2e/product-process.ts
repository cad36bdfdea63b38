import { spawn } from 'node:child_process';
import type { ChildProcess, ChildProcessByStdio } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from 'pg';
import { parseDocument } from 'yaml';
import { signAdminToken } from '../../src/runtime/admin-secret';
import { TEST_DATABASE_URL } from '../support/databases';
import { writeTemplateCluster } from '../support/pglite-template';
import { freePort } from '../support/free-port';

export { freePort };

export const ROOT = resolve(__dirname, '..', '..');

export interface ProductProcess {
  child: ChildProcess;
  port: number;
  adminPort: number;
  base: string;
  admin: string;
  output: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A copy of config/ in a temp dir, edited through the YAML documents (comments kept). */
export function tempConfig(
  edit: (
    files: Record<'plans' | 'datasets' | 'upstreams' | 'gateway', ReturnType<typeof parseDocument>>,
  ) => void,
): string {
  const dir = mkdtempSync(join(tmpdir(), 'lk-config-'));
  cpSync(join(ROOT, 'config'), dir, { recursive: true });
  const names = ['plans', 'datasets', 'upstreams', 'gateway'] as const;
  const docs = Object.fromEntries(
    names.map((n) => [n, parseDocument(readFileSync(join(dir, `${n}.yaml`), 'utf8'))]),
  ) as Record<(typeof names)[number], ReturnType<typeof parseDocument>>;
  edit(docs);
  for (const n of names) writeFileSync(join(dir, `${n}.yaml`), docs[n].toString());
  return dir;
}

/**
 * `src/main.ts` in its own process, as `npm start` runs it: its output so far and its exit code.
 * `nodeArgs` go after tsx's loader, so they may name TypeScript modules to `--import`; `args` after
 * the script (`upstream <name>`).
 */
export function spawnProduct(
  env: Record<string, string>,
  nodeArgs: string[] = [],
  args: string[] = [],
  /** A directory of the caller's to remove once the process has exited (its own DATA_DIR). */
  removeOnExit?: string,
): {
  child: ChildProcessByStdio<null, Readable, Readable>;
  output: () => string;
  exited: Promise<number | null>;
} {
  // A DATA_DIR made here is this process's alone; removed at its exit, as each holds a PGlite
  // cluster (40 MB) that a run of the suites would otherwise leave behind by the dozen.
  const temporary = env.DATA_DIR === undefined ? mkdtempSync(join(tmpdir(), 'lk-data-')) : removeOnExit;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', ...nodeArgs, join(ROOT, 'src', 'main.ts'), ...args],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        ADMIN_PORT: '0',
        LOG_LEVEL: 'info',
        ...(temporary === undefined ? {} : { DATA_DIR: temporary }),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  // 'exit' can come before the last output is read; 'close' comes after it, unless a process the
  // product started still holds its output, so 'exit' still ends the wait 2 s later.
  const exited = new Promise<number | null>((r) => {
    child.once('close', (code) => r(code));
    child.once('exit', (code) => setTimeout(() => r(code), 2_000).unref());
  }).then((code) => {
    if (temporary !== undefined) rmSync(temporary, { recursive: true, force: true });
    return code;
  });
  return { child, output: () => out, exited };
}

/**
 * A DATA_DIR of its own holding a fresh PGlite cluster: a product or upstream process started on it
 * runs its migrations and seeds without initdb first (3 s idle, 5–8 s with the other suites busy).
 */
export async function clusterDataDir(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'lk-data-'));
  await writeTemplateCluster(dir);
  return dir;
}

/**
 * Starts `src/main.ts` in its own process, the way `npm start` does, and waits for its ports. On
 * PGlite in a DATA_DIR of its own, the process starts from a fresh cluster's dump instead of running
 * initdb (3 s idle, 5–8 s with the other suites busy); a suite that names DATA_DIR gets a real
 * first start.
 */
export async function startProductProcess(
  env: Record<string, string>,
  timeoutMs = 120_000,
  nodeArgs: string[] = [],
): Promise<ProductProcess> {
  const own = env.DATABASE_URL === undefined && env.DATA_DIR === undefined;
  const dataDir = own ? await clusterDataDir() : undefined;
  const { child, output, exited } = spawnProduct(
    dataDir ? { ...env, DATA_DIR: dataDir } : env,
    nodeArgs,
    [],
    dataDir,
  );
  const started = await new Promise<{ port: number; admin_port: number }>((resolveStart, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`product did not start:\n${output().slice(-3000)}`)),
      timeoutMs,
    );
    const onData = (): void => {
      const line = output()
        .split('\n')
        .find((l) => l.includes('"lookup api started"'));
      if (!line) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      resolveStart(JSON.parse(line) as { port: number; admin_port: number });
    };
    child.stdout.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`product exited with ${code}:\n${output().slice(-3000)}`));
    });
  });
  return {
    child,
    port: started.port,
    adminPort: started.admin_port,
    base: `http://127.0.0.1:${started.port}`,
    admin: `http://127.0.0.1:${started.admin_port}`,
    output,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export const ADMIN_SECRET = 'e2e-' + randomBytes(16).toString('hex');

/** Calls the admin API with a freshly signed HS256 token. */
export async function adminCall(
  p: ProductProcess,
  method: string,
  path: string,
  body?: unknown,
  secret = ADMIN_SECRET,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const token = await signAdminToken(secret, Date.now(), 600);
  const r = await fetch(`${p.admin}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  return { status: r.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** An account with one key, through the admin API. */
export async function newAccount(
  p: ProductProcess,
  plan: string,
  extra: { email_verified?: boolean; ip_allowlist?: string[] } = {},
): Promise<{ id: string; key: string; keyId: string }> {
  const acc = await adminCall(p, 'POST', '/admin/accounts', {
    email: `${randomBytes(6).toString('hex')}@example.vn`,
    plan,
    email_verified: extra.email_verified ?? true,
  });
  if (acc.status !== 201) throw new Error(`account: ${acc.status} ${JSON.stringify(acc.json)}`);
  const key = await adminCall(
    p,
    'POST',
    `/admin/accounts/${String(acc.json.id)}/keys`,
    extra.ip_allowlist ? { ip_allowlist: extra.ip_allowlist } : {},
  );
  if (key.status !== 201) throw new Error(`key: ${key.status} ${JSON.stringify(key.json)}`);
  return { id: String(acc.json.id), key: String(key.json.key), keyId: String(key.json.id) };
}

export async function apiGet(
  p: ProductProcess,
  path: string,
  key?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const r = await fetch(`${p.base}${path}`, {
    headers: { ...(key ? { 'x-api-key': key } : {}), ...headers },
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown>, headers: r.headers };
}

type ConfigDocs = Parameters<Parameters<typeof tempConfig>[0]>[0];

const UPSTREAM_NAMES = ['legal', 'directory', 'mof-catalogs', 'admin-units'];

/** Points every upstream of the config at one address (an external stub: no built-in one starts). */
export function pointUpstreamsAt(docs: ConfigDocs, url: string): void {
  for (const name of UPSTREAM_NAMES) {
    if (docs.upstreams.hasIn(['upstreams', name])) docs.upstreams.setIn(['upstreams', name, 'url'], url);
  }
}

/** Config whose built-in upstreams listen on free ports, so tests can run side by side. */
export async function configWithFreePorts(
  edit: Parameters<typeof tempConfig>[0] = () => undefined,
): Promise<string> {
  const ports: Record<string, number> = {};
  for (const name of UPSTREAM_NAMES) ports[name] = await freePort();
  return tempConfig((docs) => {
    for (const [name, port] of Object.entries(ports)) {
      if (docs.upstreams.hasIn(['upstreams', name]))
        docs.upstreams.setIn(['upstreams', name, 'url'], `http://127.0.0.1:${port}`);
    }
    edit(docs);
  });
}

/** A PostgreSQL schema of one e2e file's own: the DATABASE_URL that works in it, and its removal. */
export interface E2eSchema {
  databaseUrl: string;
  drop(): Promise<void>;
}

export async function createE2eSchema(): Promise<E2eSchema> {
  const schema = `e2e_${randomBytes(5).toString('hex')}`;
  const query = async (sql: string): Promise<void> => {
    const pg = new Client({ connectionString: TEST_DATABASE_URL });
    await pg.connect();
    try {
      await pg.query(sql);
    } finally {
      await pg.end();
    }
  };
  await query(`CREATE SCHEMA ${schema}`);
  return {
    databaseUrl: `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema},public`)}`,
    drop: () => query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`),
  };
}
