/**
 * The decimal text of a number, the same as String(n), made without V8's number-to-string cache.
 *
 * Why: String(n), `${n}` and '' + n store every result in that cache, which lives in the old
 * generation. A string made for one response (a remaining count, a duration) is then still
 * referenced at the next young-generation collections and gets promoted; a few per request fill the
 * old generation and bring a full collection, a 5–10 ms pause, every 15–25 s under load
 * (measured with --trace-gc-nvp: 106 bytes promoted per request before, see
 * docs/gateway-performance.md).
 *
 * Whole numbers (every count, length, second and epoch millisecond the gateway writes) are joined
 * from groups of three digits kept in two tables made once: below 1000 the answer is a kept string,
 * above it one short concatenation per group, ≈ 0.1k instructions. JSON.stringify, which also caches
 * nothing, writes the rest but for numbers with one decimal (a duration in tenths of a millisecond),
 * joined the same way: it costs ≈ 0.8k instructions a call through V8's runtime.
 */
const GROUPS = 1000;
/** Below this, doubles lie closer together than 0.01, so no other one-decimal text names the same number. */
const TENTHS_BELOW = 2 ** 40;
/** "0" … "999". */
const PLAIN: readonly string[] = Array.from({ length: GROUPS }, (_, i) => String(i));
/** "000" … "999": a group after the first. */
const PADDED: readonly string[] = Array.from({ length: GROUPS }, (_, i) => String(i).padStart(3, '0'));

export function decimal(n: number): string {
  if (Number.isSafeInteger(n)) {
    if (n >= 0) return whole(n);
    // -0 is a safe integer too, and String(-0) is "0".
    return n === 0 ? '0' : `-${whole(-n)}`;
  }
  // A duration in tenths of a millisecond (12.3): the nearest double to q.d writes as "q.d".
  if (n > 0 && n < TENTHS_BELOW) {
    const tenths = Math.round(n * 10);
    if (tenths / 10 === n) {
      const digit = tenths % 10;
      return `${whole((tenths - digit) / 10)}.${PLAIN[digit]!}`;
    }
  }
  return Number.isFinite(n) ? JSON.stringify(n) : String(n);
}

/** n: a safe integer ≥ 0. Subtracting the remainder first keeps the division exact up to 2^53. */
function whole(n: number): string {
  if (n < GROUPS) return PLAIN[n]!;
  let group = n % GROUPS;
  let rest = (n - group) / GROUPS;
  let text = PADDED[group]!;
  while (rest >= GROUPS) {
    group = rest % GROUPS;
    rest = (rest - group) / GROUPS;
    text = PADDED[group]! + text;
  }
  return PLAIN[rest]! + text;
}
