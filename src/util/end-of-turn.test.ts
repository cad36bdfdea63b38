import { createServer, connect } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { createEndOfTurn, holdWritesThisTurn } from './end-of-turn';

describe('end of turn', () => {
  test('tasks queued in one turn run together after it, in the order they were queued', async () => {
    const ran: string[] = [];
    const defer = createEndOfTurn(() => undefined);
    defer(() => ran.push('a'));
    defer(() => ran.push('b'));
    ran.push('sync');
    await Promise.resolve();
    ran.push('microtask');
    await new Promise((r) => setImmediate(r));
    expect(ran).toEqual(['sync', 'microtask', 'a', 'b']);
  });

  test('a task that throws is reported and the tasks after it still run', async () => {
    const errors: unknown[] = [];
    const ran: string[] = [];
    const defer = createEndOfTurn((err) => errors.push(err));
    defer(() => {
      throw new Error('boom');
    });
    defer(() => ran.push('after'));
    await new Promise((r) => setImmediate(r));
    expect(ran).toEqual(['after']);
    expect(errors).toHaveLength(1);
  });

  test('a task queued by a task runs in the next turn, not in a loop within this one', async () => {
    const ran: number[] = [];
    const defer = createEndOfTurn(() => undefined);
    defer(() => {
      ran.push(1);
      defer(() => ran.push(2));
    });
    await new Promise((r) => setImmediate(r));
    expect(ran).toEqual([1]);
    await new Promise((r) => setImmediate(r));
    expect(ran).toEqual([1, 2]);
  });
});

describe('holding writes for the turn', () => {
  let server: Server;
  let chunks: Buffer[];
  let arrived: Promise<void>;
  let client: Socket;

  beforeEach(async () => {
    chunks = [];
    let seen!: () => void;
    arrived = new Promise((r) => (seen = r));
    server = createServer((s) =>
      s.on('data', (c: Buffer) => {
        chunks.push(c);
        if (Buffer.concat(chunks).toString().endsWith('END')) seen();
      }),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    client = connect(port, '127.0.0.1');
    client.setNoDelay(true);
    await new Promise((r) => client.once('connect', r));
  });

  afterEach(async () => {
    client.destroy();
    await new Promise((r) => server.close(r));
  });

  test('writes of one turn leave in one piece, after the turn', async () => {
    holdWritesThisTurn(client);
    for (let i = 0; i < 20; i++) {
      holdWritesThisTurn(client);
      client.write(`cmd${i};`);
    }
    client.write('END');
    expect(client.writableLength).toBeGreaterThan(0); // still held
    await arrived;
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.toString()).toBe(`${Array.from({ length: 20 }, (_, i) => `cmd${i};`).join('')}END`);
  });

  test('the stream is free again in the next turn', async () => {
    holdWritesThisTurn(client);
    client.write('a');
    await new Promise((r) => setImmediate(r));
    expect(client.writableCorked).toBe(0);
    client.write('END');
    await arrived;
    expect(Buffer.concat(chunks).toString()).toBe('aEND');
  });
});
