import { Agent, request } from 'node:http';
import { freePort, spawnProduct } from './product-process';

/** GET /healthz on a keep-alive agent: the status, or the error code when the call failed. */
function healthz(port: number, agent: Agent): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve('EBODY'));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

describe('an upstream process (node dist/main.js upstream <name>) on SIGTERM', () => {
  it('answers a keep-alive client that never pauses until it moves on, then exits 0 within seconds', async () => {
    const port = await freePort();
    const p = spawnProduct({ PORT: String(port), LOG_LEVEL: 'info' }, [], ['upstream', 'directory']);
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    try {
      for (const t0 = Date.now(); !p.output().includes('"upstream started"');) {
        if (Date.now() - t0 > 120_000) throw new Error(`upstream did not start:\n${p.output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      // Two loops back to back on two kept-alive sockets, as a gateway's pool sends.
      const results: (number | string)[] = [];
      let signalled = 0;
      const loop = async (): Promise<void> => {
        for (;;) {
          const r = await healthz(port, agent);
          results.push(r);
          if (r === 'ECONNREFUSED') return; // closed to new connections: the Service sends elsewhere
          if (results.length === 40 && !signalled) {
            signalled = Date.now();
            p.child.kill('SIGTERM');
          }
        }
      };
      await Promise.all([loop(), loop()]);
      const code = await p.exited;
      expect(code).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(8_000);
      const failed = results.filter((r) => r !== 200 && r !== 'ECONNREFUSED');
      expect(failed).toEqual([]);
      expect(results.filter((r) => r === 200).length).toBeGreaterThanOrEqual(40);
      expect(p.output()).toContain('shutting down: draining in-flight requests');
    } finally {
      agent.destroy();
      if (p.child.exitCode === null) p.child.kill('SIGKILL');
    }
  }, 180_000);
});
