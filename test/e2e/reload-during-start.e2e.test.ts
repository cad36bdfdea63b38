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
      for (let t = 0; t < 600 && !(readdirSafe(dataDir).length > 0); t++)
        await new Promise((r) => setTimeout(r, 50));
      expect(readdirSafe(dataDir).length).toBeGreaterThan(0);
      expect(p.output()).not.toContain('"lookup api started"');
      p.child.kill('SIGHUP');
      for (let t = 0; t < 1200 && !p.output().includes('"configuration reloaded"'); t++) {
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
  }, 90_000);
});

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
