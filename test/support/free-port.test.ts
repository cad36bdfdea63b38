import { createServer } from 'node:net';
import { canListen, freePort } from './free-port';

describe('freePort', () => {
  it('hands out distinct ports below the ephemeral range that a listener can then bind', async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    expect(new Set(ports).size).toBe(3);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(20_000);
      expect(await canListen(port)).toBe(true);
    }
  });

  it('tells a port somebody already listens on from a free one', async () => {
    const port = await freePort();
    const held = createServer();
    await new Promise<void>((r) => held.listen(port, '127.0.0.1', () => r()));
    try {
      expect(await canListen(port)).toBe(false);
    } finally {
      await new Promise<void>((r) => held.close(() => r()));
    }
  });
});
