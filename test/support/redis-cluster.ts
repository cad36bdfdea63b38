import { execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { canListen } from './free-port';
import { eventually, killRedisServer, spawnRedisServer } from './private-redis';

const run = promisify(execFile);

/** A throwaway three-primary Redis Cluster (no replicas, no persistence) on free local ports. */
export interface TestRedisCluster {
  /** REDIS_URL for it: the seed nodes, comma-separated. */
  url: string;
  ports: number[];
  close(): Promise<void>;
}

/**
 * A node listens on its port and on port + 10000 (the cluster bus), so both must be free, and both
 * below the OS's ephemeral range (Linux's starts at 32768), which outgoing connections of parallel
 * tests draw from: a bus port of 39956 was taken by one between the check and redis-server's bind.
 * So ports come from 20000–22699, buses from 30000–32699 (free-port.ts hands out 10000–19999).
 */
async function nodePort(taken: readonly number[]): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 2_700);
    if (taken.includes(port)) continue;
    if ((await canListen(port)) && (await canListen(port + 10_000))) return port;
  }
  throw new Error('no free port pair for a redis cluster node');
}

function startNode(dir: string, port: number): Promise<ChildProcess> {
  return spawnRedisServer([
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    join(dir, `nodes-${port}.conf`),
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
  ]);
}

async function clusterOk(port: number): Promise<boolean> {
  const { stdout } = await run('redis-cli', ['-p', String(port), 'cluster', 'info']);
  return stdout.includes('cluster_state:ok');
}

export async function startRedisCluster(): Promise<TestRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'lk-redis-cluster-'));
  const ports: number[] = [];
  for (let i = 0; i < 3; i++) ports.push(await nodePort(ports));
  const procs: ChildProcess[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(procs.map(killRedisServer));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) procs.push(await startNode(dir, port));
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    await eventually(async () => (await Promise.all(ports.map(clusterOk))).every(Boolean), 10_000);
  } catch (err) {
    await close();
    throw err;
  }
  return { url: ports.map((p) => `redis://127.0.0.1:${p}`).join(','), ports, close };
}
