import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * A file's lines, read from the disk as they are asked for. The reader is made on the first
 * request, not before: a readline interface starts reading when it is made, and lines it emits
 * before its iterator exists are dropped (the importer waits for a transaction to begin first).
 */
export async function* fileLines(path: string): AsyncGenerator<string> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  try {
    for await (const line of lines) yield line;
  } finally {
    lines.close();
  }
}
