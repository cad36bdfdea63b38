import { configWithFreePorts, startProductProcess } from './product-process';
import type { ProductProcess } from './product-process';

/** The exit code, or 'running' when the process is still up after ms. */
async function exitWithin(p: ProductProcess, ms: number): Promise<number | null | 'running'> {
  let timer: NodeJS.Timeout | undefined;
  const running = new Promise<'running'>((r) => (timer = setTimeout(() => r('running'), ms)));
  // A timer left pending after the exit would hold the test's worker for the rest of its ms.
  return Promise.race([p.exited, running]).finally(() => clearTimeout(timer));
}

// Whoever read the product's output is gone (a log shipper that died, `npm start | head`): its
// writes fail with EPIPE from then on.
const closeOutput = (p: ProductProcess): void => {
  p.child.stdout?.destroy();
  p.child.stderr?.destroy();
};

// Nothing here reads a dataset: sample rows would only lengthen each start.
const startSeedless = async (): Promise<ProductProcess> =>
  startProductProcess({ CONFIG_DIR: await configWithFreePorts(), SEED_SAMPLE_DATA: 'false' });

describe('a product whose output pipe has closed', () => {
  it('still exits on SIGTERM, with 0, when its last lines cannot be written', async () => {
    const p = await startSeedless();
    try {
      closeOutput(p);
      p.child.kill('SIGTERM');
      expect(await exitWithin(p, 20_000)).toBe(0);
    } finally {
      p.child.kill('SIGKILL');
    }
  }, 120_000);

  it('goes on answering, its log lines dropped, and exits on SIGTERM', async () => {
    const p = await startSeedless();
    try {
      closeOutput(p);
      const statuses = new Set<number>();
      for (let i = 0; i < 200; i++) statuses.add((await fetch(`${p.base}/v1/legal-documents?q=luat`)).status);
      expect([...statuses]).toEqual([401]);
      p.child.kill('SIGTERM');
      expect(await exitWithin(p, 20_000)).toBe(0);
    } finally {
      p.child.kill('SIGKILL');
    }
  }, 120_000);
});
