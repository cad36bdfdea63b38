/**
 * What a gateway's old generation gains, read from its `--trace-gc-nvp` lines as its log grows.
 *
 * Full GCs counted in a window only show a change in how long objects live when one happens to
 * fall in it; the growth per request shows it in every window and does not move with the host's
 * speed. Two numbers, because they differ when V8 pretenures an allocation site (step 34 in
 * docs/gateway-performance.md): what scavenges promoted, and how much the heap outside the young
 * generation grew from one scavenge to the next, which also holds what was allocated straight into
 * the old generation.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export interface GcGrowthReading {
  /** Scavenges in the lines read. */
  scavenges: number;
  /** Bytes they promoted to the old generation (their `promoted=`). */
  promoted: number;
  /**
   * Bytes the heap outside the young generation grew by from one scavenge to the next (none across
   * another kind of GC): the heap after each, less what it left in the young generation.
   */
  grown: number;
}

/** `[pid:isolate]    1234 ms: pause=… gc=s …`: V8's own line, never an access line that quotes one. */
const NVP = /^\[\d+:0x[0-9a-f]+\]\s+[\d.]+ ms: pause=.*?\sgc=(\w+)\s/;

/** Newer V8 (Node 26) writes the same as JSON: `[pid:isolate:n]    1234 ms: GC: {"pause":…}`. */
const NVP_JSON = /^\[\d+:0x[0-9a-f]+(?::\d+)?\]\s+[\d.]+ ms: GC: (\{.*\})\s*$/;

const field = (line: string, name: string): number | undefined => {
  const at = line.indexOf(` ${name}=`);
  if (at < 0) return undefined;
  const value = Number.parseFloat(line.slice(at + name.length + 2));
  return Number.isFinite(value) ? value : undefined;
};

const numberIn = (o: Record<string, unknown>, name: string): number | undefined =>
  typeof o[name] === 'number' ? o[name] : undefined;

/** One GC of a --trace-gc-nvp line in either form: its kind, the heap's size after it, what it moved. */
interface NvpLine {
  gc: string;
  total: number | undefined;
  promoted: number | undefined;
  survived: number | undefined;
}

function nvpLine(line: string): NvpLine | undefined {
  const gc = NVP.exec(line)?.[1];
  if (gc !== undefined) {
    return {
      gc,
      total: field(line, 'total_size_after'),
      promoted: field(line, 'promoted'),
      survived: field(line, 'new_space_survived'),
    };
  }
  const json = NVP_JSON.exec(line)?.[1];
  if (json === undefined) return undefined;
  // The pattern holds a braced text: it parses to an object, or not at all.
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof r.gc !== 'string') return undefined;
  return {
    gc: r.gc,
    total: numberIn(r, 'end_object_size'),
    promoted: numberIn(r, 'promoted'),
    survived: numberIn(r, 'new_space_survived'),
  };
}

/** Reads one log file from where the last reading stopped; lines not from --trace-gc-nvp are skipped. */
export class GcGrowth {
  private offset = 0;
  private lastAfter: number | undefined;

  constructor(private readonly file: string) {}

  /** The scavenges logged since the last call (a line not yet ended waits for the next). */
  read(): GcGrowthReading {
    const reading: GcGrowthReading = { scavenges: 0, promoted: 0, grown: 0 };
    for (const line of this.readLines()) {
      const entry = nvpLine(line);
      if (entry === undefined) continue;
      const total = entry.total;
      if (entry.gc !== 's' || total === undefined) {
        // A full GC frees the old generation: growth is counted again from the next scavenge.
        this.lastAfter = undefined;
        continue;
      }
      reading.scavenges++;
      const promoted = entry.promoted ?? 0;
      // What survived and was not promoted was copied within the young generation, and stays there.
      const after = total - ((entry.survived ?? promoted) - promoted);
      reading.promoted += promoted;
      if (this.lastAfter !== undefined) reading.grown += after - this.lastAfter;
      this.lastAfter = after;
    }
    return reading;
  }

  /** The whole lines written since the last call; the offset stays at the start of a line not yet ended. */
  private readLines(): string[] {
    const fd = openSync(this.file, 'r');
    try {
      const bytes = Buffer.alloc(Math.max(0, fstatSync(fd).size - this.offset));
      const n = readSync(fd, bytes, 0, bytes.length, this.offset);
      const end = bytes.subarray(0, n).lastIndexOf(0x0a) + 1;
      this.offset += end;
      return bytes.subarray(0, end).toString('utf8').split('\n');
    } finally {
      closeSync(fd);
    }
  }
}

/** Bytes per request, rounded to a byte. */
export const perRequest = (bytes: number, requests: number): number =>
  Math.round(bytes / Math.max(1, requests));
