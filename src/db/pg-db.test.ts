import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { openPgDb } from './pg-db';

describe('PostgreSQL connections', () => {
  it('fails a query, rather than waiting for ever, when the server takes the connection and never answers', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => {
      sockets.push(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const { port } = silent.address() as { port: number };
    const db = await openPgDb({
      connectionString: `postgres://postgres@127.0.0.1:${port}/test`,
      connectTimeoutMs: 300,
    });
    try {
      const t0 = Date.now();
      await expect(db.query('SELECT 1')).rejects.toThrow(/timeout/i);
      expect(Date.now() - t0).toBeLessThan(5_000);
    } finally {
      await db.close().catch(() => undefined);
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});
