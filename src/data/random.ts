import { createHash } from 'node:crypto';

/** A small seeded PRNG (mulberry32): the same seed gives the same sample data on every machine. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }
  /** Picks by weight; weights need not sum to 1. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    const total = items.reduce((s, [, w]) => s + w, 0);
    let r = this.next() * total;
    for (const [v, w] of items) {
      r -= w;
      if (r < 0) return v;
    }
    return items[items.length - 1]![0];
  }
}

/** An Rng for record n of a stream, so any record can be rebuilt without generating those before it. */
export function rngFor(seed: number, stream: string, n: number): Rng {
  return new Rng(createHash('sha1').update(`${seed}:${stream}:${n}`).digest().readUInt32LE(0));
}

/**
 * Opaque, permanent ids: a prefix and a hash, so no id reveals its neighbours (API reference:
 * "No other id can be derived from a given id"). 14 hex digits keep collisions negligible at 10^6 rows.
 */
export function opaqueId(prefix: string, seed: number, stream: string, n: number): string {
  return prefix + createHash('sha1').update(`id:${seed}:${stream}:${n}`).digest('hex').slice(0, 14);
}

/** YYYY-MM-DD of a UTC day number. */
export function isoDay(epochDay: number): string {
  return new Date(epochDay * 86_400_000).toISOString().slice(0, 10);
}

export function epochDay(iso: string): number {
  return Math.floor(Date.parse(iso + 'T00:00:00Z') / 86_400_000);
}
