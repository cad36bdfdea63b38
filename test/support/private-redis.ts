import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createRedisClient, waitForReady } from '../../src/stores/redis-client';
import { freePort } from './free-port';

/** Starts redis-server with these arguments and resolves once it accepts connections. */
export function spawnRedisServer(args: string[]): Promise<ChildProcess> {
  const proc = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 5000);
    proc.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(proc);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${String(code)}: ${out}`));
    });
  });
}

/** A throwaway redis-server (no persistence) that a fault test may kill and restart on the same port. */
export class PrivateRedis {
  private proc: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const r = new PrivateRedis(await freePort());
    await r.restart();
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async restart(): Promise<void> {
    this.proc = await spawnRedisServer([
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--enable-debug-command',
      'yes',
    ]);
  }

  /**
   * Runs `during` while this server sleeps for `seconds` (DEBUG SLEEP from a connection of its own),
   * then waits for it to wake. The 50 ms head start lets the sleep reach the server first.
   */
  async stall(seconds: number, during: () => Promise<void>): Promise<void> {
    const blocker = createRedisClient(this.url, { commandTimeoutMs: (seconds + 5) * 1000 });
    try {
      await waitForReady(blocker);
      const sleeping = blocker.call('DEBUG', 'SLEEP', String(seconds));
      try {
        await new Promise((r) => setTimeout(r, 50));
        await during();
      } finally {
        await sleeping;
      }
    } finally {
      blocker.disconnect();
    }
  }

  /** SIGKILL: the connection drops as in a crash, with no goodbye. */
  async kill(): Promise<void> {
    const proc = this.proc;
    this.proc = undefined;
    if (proc) await killRedisServer(proc);
  }
}

/** SIGKILL, and resolves once the process has exited (at once if it already had). */
export async function killRedisServer(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGKILL');
  await exited;
}

/** Polls until cond holds or timeoutMs passes. */
export async function eventually(cond: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
