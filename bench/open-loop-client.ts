// The bench's side of the open-loop generator (bench/open-loop-generator.ts): one process for the
// whole run, started through taskset on the load CPU so that all its threads stay there, and asked
// for one window at a time over node's IPC channel.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { LoadTarget } from './bench-lib';
import type { OpenLoopRequest, OpenLoopResult } from './open-loop-generator';
import { ROOT, onCpus } from './gateway-setup';

export type { OpenLoopResult } from './open-loop-generator';

/**
 * The generator's node flags: a 64 MB young generation (it scavenges about once a second at
 * 6,700 req/s, where the default's 16 MB did several times a second) and no GC helper threads,
 * which on the one load CPU would only take turns with the stub and Redis.
 */
export const OPEN_LOOP_NODE_FLAGS = ['--max-semi-space-size=64', '--single-threaded-gc'];

export interface OpenLoop {
  /**
   * One window of `seconds` at `rate` req/s against the target, on that origin's keep-alive pool
   * (a new one with `freshPool`: for a warm-up, see open-loop-generator.ts).
   */
  run(
    target: LoadTarget,
    rate: number,
    seconds: number,
    opts?: { slowMs?: number; freshPool?: boolean },
  ): Promise<OpenLoopResult>;
  pid: number;
  close(): Promise<void>;
}

type Reply = { ready: true } | { ok: OpenLoopResult } | { error: string };

export async function startOpenLoop(cpus: string | undefined): Promise<OpenLoop> {
  const script = join(ROOT, 'bench', 'open-loop-generator.ts');
  const [cmd, args] = onCpus(cpus, process.execPath, [...OPEN_LOOP_NODE_FLAGS, '--import', 'tsx', script]);
  const child: ChildProcess = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let waiting: { resolve(r: Reply): void; reject(e: Error): void } | undefined;
  const next = (): Promise<Reply> => new Promise((resolve, reject) => (waiting = { resolve, reject }));
  child.on('message', (m: Reply) => waiting?.resolve(m));
  child.once('exit', (code) => waiting?.reject(new Error(`open-loop generator exited (${code})`)));
  await next();
  let queue: Promise<unknown> = Promise.resolve();
  return {
    pid: child.pid ?? 0,
    run(target, rate, seconds, opts = {}) {
      const req: OpenLoopRequest = { url: target.url, headers: target.headers ?? {}, rate, seconds, ...opts };
      // One window at a time: they share the load CPU, and a window measures one target.
      const result = queue.then(async () => {
        const reply = next();
        child.send(req);
        const r = await reply;
        if ('error' in r) throw new Error(`open-loop generator: ${r.error}`);
        if (!('ok' in r)) throw new Error('open-loop generator: unexpected reply');
        return r.ok;
      });
      queue = result.catch(() => undefined);
      return result;
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.disconnect();
      await exited;
    },
  };
}
