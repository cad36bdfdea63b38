import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configWithFreePorts, spawnProduct } from './product-process';

describe('a SIGHUP while the product starts', () => {
  it('neither ends the process nor is lost: the reload runs once the start is done', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lk-hup-'));
    const configDir = await configWithFreePorts();
    const dataDir = join(root, 'data');
    const p = spawnProduct({ DATA_DIR: dataDir, CONFIG_DIR: configDir });
    try {
      // The data directory fills once the product's own code runs, seconds before a first start
      // (migrations, sample data) is done: the signal comes in the middle of it.
      // Deadlines, not counts of 50 ms waits: a loaded machine makes each wait longer. A first
      // start with the sample data took 50 s of its 90 s with the other suites running.
      const filled = Date.now() + 60_000;
      while (Date.now() < filled && !(readdirSafe(dataDir).length > 0))
        await new Promise((r) => setTimeout(r, 50));
      expect(readdirSafe(dataDir).length).toBeGreaterThan(0);
      expect(p.output()).not.toContain('"lookup api started"');
      p.child.kill('SIGHUP');
      const reloaded = Date.now() + 150_000;
      while (Date.now() < reloaded && !p.output().includes('"configuration reloaded"')) {
        if (p.child.exitCode !== null || p.child.signalCode !== null) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect([p.child.exitCode, p.child.signalCode]).toEqual([null, null]);
      const out = p.output();
      expect([out.includes('"lookup api started"'), out.includes('"configuration reloaded"')]).toEqual([
        true,
        true,
      ]);
      expect(out.indexOf('"configuration reloaded"')).toBeGreaterThan(out.indexOf('"lookup api started"'));
    } finally {
      p.child.kill('SIGKILL');
      await p.exited;
      rmSync(root, { recursive: true, force: true });
      rmSync(configDir, { recursive: true, force: true });
    }
  }, 240_000);
});

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
