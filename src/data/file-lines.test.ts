import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileLines } from './file-lines';

describe('reading a file line by line', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'file-lines-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives every line even when the reading starts well after it is asked for', async () => {
    const file = join(dir, 'many.jsonl');
    const written = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ id: `x_${i}`, pad: 'p'.repeat(40) }));
    writeFileSync(file, written.join('\r\n') + '\n');
    const lines = fileLines(file);
    // The importer opens a transaction between making the source and reading it.
    await new Promise((r) => setTimeout(r, 200));
    const read: string[] = [];
    for await (const line of lines) read.push(line);
    expect(read).toEqual(written);
  });
});
