/**
 * The decimal text of a number, the same as String(n), made without V8's number-to-string cache.
 *
 * Why: String(n), `${n}` and '' + n store every result in that cache, which lives in the old
 * generation. A string made for one response (a remaining count, a duration) is then still
 * referenced at the next young-generation collections and gets promoted; a few per request fill the
 * old generation and bring a full collection, a 5–10 ms pause, every 15–25 s under load
 * (measured with --trace-gc-nvp: 106 bytes promoted per request before, see
 * docs/gateway-performance.md). JSON.stringify writes the digits itself and caches nothing.
 */
export function decimal(n: number): string {
  return Number.isFinite(n) ? JSON.stringify(n) : String(n);
}
