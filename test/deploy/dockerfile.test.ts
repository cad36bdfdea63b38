/**
 * deploy/Dockerfile (build context: the repo root): every COPY source exists in the repo and
 * survives .dockerignore, or comes from an earlier stage; the runtime stage is production-only,
 * non-root, secret-free and starts `node dist/main.js` through its entrypoint script, the gateway
 * with the flags of `npm start`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNodeFlags } from '../support/start-node-flags';
import type { DockerInstruction } from './deploy-helpers';
import { DEPLOY_DIR, REPO_ROOT, dockerignoreMatcher, parseDockerfile, splitArgs } from './deploy-helpers';

interface PackageJson {
  engines: { node: string };
}

const instructions = parseDockerfile(readFileSync(join(DEPLOY_DIR, 'Dockerfile'), 'utf8'));
const ignoreFile = join(REPO_ROOT, '.dockerignore');
const ignored = dockerignoreMatcher(existsSync(ignoreFile) ? readFileSync(ignoreFile, 'utf8') : '');

interface Stage {
  index: number;
  name: string | undefined;
  from: string;
  body: DockerInstruction[];
}

/** ARG defaults declared before the first FROM (usable in FROM lines). */
const globalArgs = new Map<string, string>();
const stages: Stage[] = [];
for (const ins of instructions) {
  if (ins.keyword === 'FROM') {
    const words = splitArgs(ins.args).filter((w) => !w.startsWith('--'));
    const image = words[0]!.replace(/\$\{?(\w+)\}?/g, (_m, v: string) => globalArgs.get(v) ?? '');
    const name = words[1]?.toUpperCase() === 'AS' ? words[2] : undefined;
    stages.push({ index: stages.length, name, from: image, body: [] });
  } else if (stages.length === 0) {
    if (ins.keyword === 'ARG') {
      const [k, v] = ins.args.split('=', 2);
      globalArgs.set(k!.trim(), (v ?? '').trim());
    }
  } else {
    stages[stages.length - 1]!.body.push(ins);
  }
}
const runtime = stages[stages.length - 1]!;

/** Files of the repo (relative, '/'-separated), without node_modules and .git, for wildcard COPY sources. */
function repoFiles(dir = REPO_ROOT, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === '.git') continue;
    const rel = prefix + entry.name;
    out.push(rel);
    if (entry.isDirectory()) out.push(...repoFiles(join(dir, entry.name), rel + '/'));
  }
  return out;
}

function copies(): { stage: Stage; ins: DockerInstruction; from: string | undefined; sources: string[] }[] {
  return stages.flatMap((stage) =>
    stage.body
      .filter((ins) => ins.keyword === 'COPY' || ins.keyword === 'ADD')
      .map((ins) => {
        const words = splitArgs(ins.args);
        const flags = words.filter((w) => w.startsWith('--'));
        const paths = words.filter((w) => !w.startsWith('--'));
        const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
        return { stage, ins, from, sources: paths.slice(0, -1) };
      }),
  );
}

describe('deploy/Dockerfile', () => {
  it('is multi-stage, building and running on one Node image that package.json admits', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const external = stages.filter((s) => !stages.some((x) => x.name === s.from)).map((s) => s.from);
    expect(new Set(external)).toEqual(new Set([runtime.from]));
    const major = /^node:(\d+)[.-]/.exec(runtime.from);
    const engines = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as PackageJson)
      .engines;
    const least = /^>=(\d+)\./.exec(engines.node);
    expect(major).not.toBeNull();
    expect(least).not.toBeNull();
    expect(Number(major![1])).toBeGreaterThanOrEqual(Number(least![1]));
  });

  it('has COPY instructions', () => {
    expect(copies().length).toBeGreaterThan(0);
  });

  it.each(copies().map((c) => [`line ${c.ins.line}: ${c.ins.keyword} ${c.ins.args}`, c] as const))(
    '%s copies sources that exist',
    (_label, c) => {
      expect(c.ins.keyword).toBe('COPY'); // ADD fetches URLs and unpacks archives: not wanted here
      expect(c.sources.length).toBeGreaterThan(0);
      if (c.from !== undefined) {
        // Another stage, declared earlier (by name or index), or an external image.
        const earlier = stages.slice(0, c.stage.index);
        const byStage = earlier.some((s) => s.name === c.from || String(s.index) === c.from);
        expect({ from: c.from, earlierStage: byStage || c.from.includes(':') }).toEqual({
          from: c.from,
          earlierStage: true,
        });
        return;
      }
      for (const src of c.sources) {
        const rel = src.replace(/^\.\//, '').replace(/\/$/, '');
        if (rel === '.' || rel === '') continue;
        if (/[*?[]/.test(rel)) {
          const re = new RegExp(
            '^' +
              rel
                .replace(/[.+^${}()|\\]/g, '\\$&')
                .replace(/\*/g, '[^/]*')
                .replace(/\?/g, '[^/]') +
              '$',
          );
          const matches = repoFiles().filter((f) => re.test(f) && !ignored(f));
          expect({ source: src, matches: matches.length > 0 }).toEqual({ source: src, matches: true });
        } else {
          expect({ source: src, exists: existsSync(join(REPO_ROOT, rel)), ignored: ignored(rel) }).toEqual({
            source: src,
            exists: true,
            ignored: false,
          });
        }
      }
    },
  );

  it('builds with dev dependencies and installs production dependencies only in the runtime stage', () => {
    const runs = (s: Stage) => s.body.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    const earlier = stages.slice(0, -1);
    expect(earlier.some((s) => runs(s).some((r) => /\bnpm ci\b/.test(r) && !/--omit=dev/.test(r)))).toBe(
      true,
    );
    expect(earlier.some((s) => runs(s).some((r) => /\bnpm run build\b|\btsc\b/.test(r)))).toBe(true);
    const npmCi = runs(runtime).filter((r) => /\bnpm (ci|install|i)\b/.test(r));
    expect(npmCi.length).toBe(1);
    expect(npmCi[0]).toMatch(/npm ci\b.*--omit=dev/);
    // dist/ comes from the build stage.
    expect(
      copies().some(
        (c) => c.stage === runtime && c.from !== undefined && c.sources.some((s) => /\/dist\/?$/.test(s)),
      ),
    ).toBe(true);
  });

  it('runs as a non-root numeric user, exposes 8080 and 9090, and starts through the entrypoint script', () => {
    const user = runtime.body.filter((i) => i.keyword === 'USER').pop();
    expect(user?.args).toMatch(/^[1-9]\d*(:\d+)?$/);
    const exposed = runtime.body.filter((i) => i.keyword === 'EXPOSE').flatMap((i) => splitArgs(i.args));
    expect(exposed.map((p) => p.replace(/\/tcp$/, ''))).toEqual(expect.arrayContaining(['8080', '9090']));
    const entry = runtime.body.filter((i) => i.keyword === 'ENTRYPOINT').pop();
    const cmd = runtime.body.filter((i) => i.keyword === 'CMD').pop();
    expect(entry?.args.startsWith('[')).toBe(true); // exec form: the script execs node as PID 1
    expect(splitArgs(entry!.args)).toEqual(['/app/docker-entrypoint.sh']);
    expect(cmd ? splitArgs(cmd.args) : []).toEqual([]);
    const workdir = runtime.body.filter((i) => i.keyword === 'WORKDIR').pop()?.args;
    expect(workdir).toBe('/app');
    const copied = copies().find(
      (c) => c.stage === runtime && c.sources.includes('deploy/docker-entrypoint.sh'),
    );
    expect(copied?.ins.args).toMatch(/ \.\/docker-entrypoint\.sh$/);
    // Executable by the runtime user, from the checkout's mode (COPY keeps it).
    expect(statSync(join(DEPLOY_DIR, 'docker-entrypoint.sh')).mode & 0o755).toBe(0o755);
  });

  describe('the entrypoint script', () => {
    // A `node` on PATH that prints what it was given, so the script's exec is seen, not run.
    const bin = mkdtempSync(join(tmpdir(), 'entrypoint-'));
    writeFileSync(join(bin, 'node'), '#!/bin/sh\nprintf "%s\\n" "$@"\n', { mode: 0o755 });
    afterAll(() => rmSync(bin, { recursive: true, force: true }));
    const run = (...args: string[]): string[] =>
      execFileSync('sh', [join(DEPLOY_DIR, 'docker-entrypoint.sh'), ...args], {
        env: { PATH: `${bin}:/usr/bin:/bin` },
        encoding: 'utf8',
      })
        .split('\n')
        .filter(Boolean);

    it('runs the gateway with the node flags of npm start', () => {
      expect(run()).toEqual([...startNodeFlags(REPO_ROOT), 'dist/main.js']);
    });

    it("runs an upstream with Node's defaults and its arguments as given", () => {
      expect(run('upstream', 'legal')).toEqual(['dist/main.js', 'upstream', 'legal']);
    });
  });

  it('bakes in no secrets and writes only to DATA_DIR outside the app directory', () => {
    const env = runtime.body
      .filter((i) => i.keyword === 'ENV' || i.keyword === 'ARG')
      .flatMap((i) => [...i.args.matchAll(/(\w+)=("[^"]*"|\S*)/g)].map((m) => [m[1]!, m[2]!] as const));
    for (const stage of stages) {
      for (const i of stage.body.filter((x) => x.keyword === 'ENV' || x.keyword === 'ARG')) {
        expect(i.args).not.toMatch(/ADMIN_JWT_SECRET|DATABASE_URL|REDIS_URL|PASSWORD|TOKEN/);
      }
    }
    const dataDir = env.find(([k]) => k === 'DATA_DIR')?.[1];
    expect(dataDir).toBeDefined();
    const workdir = runtime.body.filter((i) => i.keyword === 'WORKDIR').pop()?.args ?? '/';
    expect(dataDir!.startsWith(workdir + '/')).toBe(false);
  });
});

describe('.dockerignore', () => {
  it('exists at the repo root', () => {
    expect(existsSync(ignoreFile)).toBe(true);
  });

  it.each([
    'node_modules/x/index.js',
    'src/node_modules/x',
    '.git/HEAD',
    'dist/main.js',
    'var/pg/PG_VERSION',
    '.env',
    'config/.env.local',
    'test/deploy/x.test.ts',
  ])('keeps %s out of the build context', (path) => {
    expect(ignored(path)).toBe(true);
  });

  it.each([
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'src/main.ts',
    'config/gateway.yaml',
    'migrations/001.sql',
    'data/sample.jsonl',
  ])('keeps %s in the build context', (path) => {
    expect(ignored(path)).toBe(false);
  });
});
