// Setting up the gateway bench's servers: the dist build, a bench config pointing every upstream at
// the stub, the gateway, nginx, the bare proxy and the stub, each optionally pinned to CPUs.
import { execFileSync, execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { getPriority, setPriority, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { signAdminToken } from '../src/runtime/admin-secret';
import { startNodeFlags } from '../test/support/start-node-flags';
import { UNLIMITED_PLAN } from '../test/support/unlimited-plan';
import type { BareClient } from './bare-proxy';
import { commandPath, freePort, spawnChild, waitForHttp } from './bench-lib';
import { STUB_KEEP_ALIVE_S } from './upstream-stub';
import type { Child } from './bench-lib';

export const ROOT = resolve(__dirname, '..');
export const DIST = join(ROOT, 'var', 'bench-dist');
export const STUB_HOST = '127.0.0.2';

export interface Server extends Child {
  port: number;
}

export interface Gateway extends Server {
  adminPort: number;
  logFile: string;
  /** Every flag node ran it with, in order: what a run's record says it measured. */
  nodeFlags: string[];
}

/**
 * The priority the bench's servers run at, all their threads, when the bench may raise one (root):
 * the stub and Redis, which stand in for machines of their own, answer before the load generator's
 * next time slice, and the server under test keeps its CPU against the other services of a shared
 * machine (its message brokers, databases and the kernel's housekeeping threads), which then take
 * their turns on it in short slices instead of holding it for milliseconds. Not the load generators.
 */
export const SERVER_NICE: number | undefined = process.getuid?.() === 0 ? -10 : undefined;

/**
 * cmd and args, run through taskset on the given CPU list ("1", "0-1") when there is one, and
 * through nice at the given priority: both apply to every thread the process will start.
 */
export function onCpus(
  cpus: string | undefined,
  cmd: string,
  args: string[],
  nice?: number,
): [string, string[]] {
  const [c, a] = cpus === undefined ? [cmd, args] : ['taskset', ['-c', cpus, cmd, ...args]];
  return nice === undefined ? [c, a] : ['nice', ['-n', String(nice), c, ...a]];
}

/** Can this machine pin: at least two CPUs and taskset (util-linux) installed. */
export function canPin(nproc: number): boolean {
  return nproc >= 2 && commandPath('taskset') !== undefined;
}

/** Moves this process (the load generators run in it) to the given CPUs. */
export function pinSelf(cpus: string): void {
  execFileSync('taskset', ['-a', '-cp', cpus, String(process.pid)], { stdio: 'pipe' });
}

/**
 * Moves a local server process (Redis) to the given CPUs and, when given, scheduling priority for
 * the bench; returns how to put both back. Only for a process this user may change; otherwise
 * nothing changes.
 */
export function pinProcess(pid: number, cpus: string, priority?: number): (() => void) | undefined {
  try {
    const mask = /:\s*(\S+)\s*$/.exec(
      execFileSync('taskset', ['-p', String(pid)], { stdio: 'pipe' }).toString(),
    )?.[1];
    if (!mask) return undefined;
    const nice = getPriority(pid);
    execFileSync('taskset', ['-a', '-cp', cpus, String(pid)], { stdio: 'pipe' });
    if (priority !== undefined) setPriority(pid, priority);
    return () => {
      if (priority !== undefined) setPriority(pid, nice);
      execFileSync('taskset', ['-a', '-p', mask, String(pid)], { stdio: 'pipe' });
    };
  } catch {
    return undefined;
  }
}

/**
 * The kernel's DAMON monitor threads (`kdamond.N`), where the machine runs them, moved to the load
 * CPU for the run (their priority untouched). On a kernel without preemption each of their runs
 * holds its CPU for 3–6 ms, every ≈ 0.51 s: left free they land on whichever CPU the scheduler
 * picks, mostly the server's under load, so they stalled the server under test in (c) and (d)'s
 * windows but rarely the stub in (a)'s, and that stall counted as latency added by the server. On
 * the load CPU they delay the generator and the stub alike in every window. Returns the threads
 * moved and how to put them back; nothing without the right to move them.
 */
export function pinKernelMonitors(cpus: string): { moved: string[]; restore(): void } {
  const moved: string[] = [];
  const restores: (() => void)[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let comm: string;
    try {
      comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (!/^kdamond\.\d+$/.test(comm)) continue;
    const restore = pinProcess(Number(entry), cpus);
    if (restore) {
      moved.push(comm);
      restores.push(restore);
    }
  }
  return { moved, restore: () => restores.forEach((r) => r()) };
}

/** How a bench server runs: under a wrapper command (valgrind …), from a compiled file (buildBare). */
export interface ServerRun {
  wrapper?: string[];
  built?: string;
  /** node's own flags, before the script. */
  nodeFlags?: string[];
}

/**
 * `node` (default: the binary running the bench) with these arguments, or run under a wrapper
 * command (valgrind …) given as its argv.
 */
function wrapped(
  wrapper: string[] | undefined,
  nodeArgs: string[],
  node = process.execPath,
): [string, string[]] {
  if (!wrapper || wrapper.length === 0) return [node, nodeArgs];
  return [wrapper[0]!, [...wrapper.slice(1), node, ...nodeArgs]];
}

/**
 * bench/bare-proxy.ts compiled by tsc into var/bench-bare, to run on plain node as the gateway's
 * dist build does (for --instructions, where tsx's loader would be one more thread to count).
 */
export function buildBare(): string {
  const out = join(ROOT, 'var', 'bench-bare');
  execFileSync(
    join(ROOT, 'node_modules', '.bin', 'tsc'),
    [
      join(ROOT, 'bench', 'bare-proxy.ts'),
      ...['--outDir', out, '--rootDir', ROOT],
      ...['--module', 'node16', '--moduleResolution', 'node16', '--target', 'es2022'],
      ...['--types', 'node', '--skipLibCheck', '--strict'],
    ],
    { cwd: ROOT, stdio: 'pipe' },
  );
  return join(out, 'bench', 'bare-proxy.js');
}

/** A bench/*.ts server, run through tsx or from its tsc build; it prints {"port":N} once it listens. */
async function startScript(
  script: string,
  args: string[],
  cpus: string | undefined,
  run: ServerRun = {},
): Promise<Server> {
  const entry = [
    ...(run.nodeFlags ?? []),
    ...(run.built ? [run.built] : ['--import', 'tsx', join(ROOT, 'bench', script)]),
  ];
  const child = spawnChild(...onCpus(cpus, ...wrapped(run.wrapper, [...entry, ...args]), SERVER_NICE), {
    cwd: ROOT,
  });
  return { ...child, port: Number((await child.firstJson).port) };
}

export function startStub(cpus: string | undefined): Promise<Server> {
  return startScript('upstream-stub.ts', [STUB_HOST, '0'], cpus);
}

export function startBare(
  stubUrl: string,
  cpus: string | undefined,
  client: BareClient = 'undici',
  run: ServerRun = {},
): Promise<Server> {
  return startScript('bare-proxy.ts', [stubUrl, '0', client], cpus, run);
}

export interface GatewayOptions {
  env: Record<string, string>;
  logLevel: string;
  cpus?: string;
  /** --cpu-prof into this directory. */
  profDir?: string;
  /** The build to run (default: var/bench-dist, the working tree's). */
  dist?: string;
  /** Flags for node (default: those this tree's `npm start` gives it; --ab's A runs with its revision's). */
  startFlags?: string[];
  /** The heap a production replica has (deployment-heap.ts), after those: the machine's, not the build's. */
  heapFlags?: string[];
  /** More flags for node after those (a diagnosis such as --trace-gc; the run's notes say so). */
  extraFlags?: string[];
  /** Scheduling priority (SERVER_NICE for a gateway on a CPU of its own; none when it shares the load's). */
  nice?: number;
  /** A command node runs under, as its argv (valgrind's, for --instructions). */
  wrapper?: string[];
  /** How long it may take to answer (a gateway under valgrind starts ≈ 20× slower). */
  startTimeoutMs?: number;
  /** The node binary it runs on (default: the one running the bench; --ab's --b-node). */
  node?: string;
}

/**
 * The product as it runs in production: node on the dist build with the flags `npm start` (and the
 * Kubernetes gateway's command) give it and, given heapFlags, the heap its replica's memory limit
 * gives it; nothing else in between.
 */
export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const port = await freePort();
  const adminPort = await freePort();
  const logDir = mkdtempSync(join(tmpdir(), 'lk-bench-gw-'));
  const logFile = join(logDir, 'gateway.log');
  const fd = openSync(logFile, 'a');
  const nodeFlags = [
    ...(opts.profDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.profDir}`] : []),
    ...(opts.startFlags ?? startNodeFlags(ROOT)),
    ...(opts.heapFlags ?? []),
    ...(opts.extraFlags ?? []),
  ];
  const args = [...nodeFlags, join(opts.dist ?? DIST, 'main.js')];
  const child = spawnChild(...onCpus(opts.cpus, ...wrapped(opts.wrapper, args, opts.node), opts.nice), {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      DATA_DIR: logDir,
      LOG_LEVEL: opts.logLevel,
      ...opts.env,
    },
    stdio: ['ignore', fd, fd],
  });
  try {
    await waitForHttp(`http://127.0.0.1:${port}/v1/me`, opts.startTimeoutMs ?? 120_000);
  } catch (err) {
    await child.stop('SIGKILL');
    throw new Error(`${(err as Error).message}\n${readFileSync(logFile, 'utf8').slice(-3000)}`);
  }
  return { ...child, port, adminPort, logFile, nodeFlags };
}

/** Builds the tree at `src` (default: this one) into `outDir` with tsc. */
export function build(rebuild: boolean, note: (s: string) => void, src = ROOT, outDir = DIST): string {
  if (!rebuild && existsSync(join(outDir, 'main.js'))) return 'dist (not rebuilt)';
  const tree = src === ROOT ? 'the working tree' : src;
  try {
    execFileSync(
      join(ROOT, 'node_modules', '.bin', 'tsc'),
      ['-p', 'tsconfig.build.json', '--outDir', outDir],
      {
        cwd: src,
        stdio: 'pipe',
      },
    );
    return `dist build of ${tree}`;
  } catch (err) {
    // tsc emits even with type errors; a half-edited tree still runs if main.js came out.
    if (!existsSync(join(outDir, 'main.js'))) throw err;
    const out = (err as { stdout?: Buffer }).stdout?.toString().split('\n').slice(0, 3).join(' | ') ?? '';
    note(`tsc reported errors while building ${tree} (emitted anyway): ${out}`);
    return `dist build of ${tree} (with type errors)`;
  }
}

export function benchConfig(stubUrl: string, root = ROOT): string {
  const dir = mkdtempSync(join(tmpdir(), 'lk-bench-config-'));
  cpSync(join(root, 'config'), dir, { recursive: true });
  const edit = (file: string, fn: (doc: ReturnType<typeof parseDocument>) => void): void => {
    const doc = parseDocument(readFileSync(join(dir, file), 'utf8'));
    fn(doc);
    writeFileSync(join(dir, file), doc.toString());
  };
  edit('upstreams.yaml', (doc) => {
    const ups = doc.getIn(['upstreams']) as { items: { key: { value: string } }[] };
    for (const item of ups.items) {
      doc.setIn(['upstreams', item.key.value, 'url'], stubUrl);
      doc.setIn(['upstreams', item.key.value, 'pool_size'], 64);
    }
  });
  edit('plans.yaml', (doc) => {
    doc.set('per_ip_per_minute', 10_000_000);
    doc.setIn(['plans', 'bench'], doc.createNode({ ...UNLIMITED_PLAN, bulk_watch: false }));
  });
  return dir;
}

export async function benchKey(gw: Gateway, secret: string): Promise<string> {
  const token = await signAdminToken(secret, Date.now(), 3600);
  const call = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const r = await fetch(`http://127.0.0.1:${gw.adminPort}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await r.json()) as Record<string, unknown>;
    if (r.status !== 201) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };
  const acc = await call('/admin/accounts', {
    email: `bench-${randomBytes(4).toString('hex')}@example.vn`,
    plan: 'bench',
    email_verified: true,
  });
  const key = await call(`/admin/accounts/${String(acc.id)}/keys`, {});
  return String(key.key);
}

export function ensureNginx(note: (s: string) => void): string | undefined {
  const found = commandPath('nginx');
  if (found) return found;
  if (process.getuid?.() !== 0) {
    note('nginx is not installed and this is not root: (b) skipped (apt-get install -y nginx)');
    return undefined;
  }
  try {
    console.log('installing nginx (apt-get) ...');
    execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx', {
      stdio: 'pipe',
      shell: '/bin/sh',
    });
  } catch (err) {
    note(`apt-get install nginx failed: (b) skipped (${(err as Error).message.slice(0, 200)})`);
  }
  return commandPath('nginx');
}

export async function startNginx(
  bin: string,
  upstreamPort: number,
  cpus: string | undefined,
): Promise<Server> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'lk-bench-nginx-'));
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((t) => `  ${t}_temp_path ${dir}/${t};`)
    .join('\n');
  const conf = `
worker_processes 1;
${process.getuid?.() === 0 ? 'user root;' : ''}
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
${temp}
  upstream stub { server ${STUB_HOST}:${upstreamPort}; keepalive 64; keepalive_timeout ${STUB_KEEP_ALIVE_S}s; }
  server {
    listen 127.0.0.1:${port};
    keepalive_requests 1000000;
    location / {
      proxy_pass http://stub;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = spawnChild(
    ...onCpus(
      cpus,
      bin,
      ['-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'],
      SERVER_NICE,
    ),
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  await waitForHttp(`http://127.0.0.1:${port}/`, 20_000);
  return { ...child, port };
}
