// U+FFFD is what reading the file put in place of bytes that are not UTF-8 (or what an earlier bad
// conversion left); a lone surrogate comes from a \uD800-style escape and would be stored as
// U+FFFD; NUL is refused by PostgreSQL, and only for the whole batch, without naming the line.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function stringProblem(s: string): string | undefined {
  if (s.includes('\uFFFD')) return 'text that is not UTF-8 (U+FFFD: bytes replaced when the file was read, or earlier)';
  if (LONE_SURROGATE.test(s)) return 'a lone UTF-16 surrogate (an escape from \\uD800 to \\uDFFF without its pair)';
  if (s.includes('\u0000')) return 'a NUL character (\\u0000), which the database cannot store';
  return undefined;
}

/** Deeper than any row of a dataset (an array of ids is 2), and far from the stack's end. */
const MAX_DEPTH = 32;

/**
 * The first string of a parsed row that the database would refuse or store damaged, or a nesting
 * no row has, as "path: reason".
 */
export function textProblem(value: unknown, path = '', depth = 0): string | undefined {
  if (typeof value === 'string') {
    const problem = stringProblem(value);
    return problem === undefined ? undefined : `${path || '(row)'}: ${problem}`;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth === MAX_DEPTH) return `${path || '(row)'}: nested deeper than ${MAX_DEPTH} levels`;
  for (const [k, v] of Object.entries(value)) {
    // A key is text too: an unknown one is refused by the schema, but by name.
    const found = textProblem(k, path) ?? textProblem(v, path ? `${path}.${k}` : k, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The row with every string in composed form (NFC), as the search and the preview count letters:
 * a file written decomposed (NFD: "a" then its marks) would otherwise rank below the spelling typed
 * and could be cut between a letter and its mark. Only after textProblem: the depth is bounded.
 */
export function composedText(value: unknown): unknown {
  if (typeof value === 'string') return value.normalize('NFC');
  if (Array.isArray(value)) return value.map(composedText);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, composedText(v)]));
}
