import { nonEmptyParts } from '../../util/split-parts';

export interface ParsedQuery {
  pairs: [string, string][];
  /** Why the query string cannot be used (bad percent-encoding, control characters). */
  error?: string;
}

// No control character belongs in a parameter: C0 (tab, CR and LF too), DEL and C1.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Form decoding ('+' is a space); most names and many values need none. */
function decode(raw: string): string {
  const plus = raw.includes('+');
  if (!plus && !raw.includes('%')) return raw;
  return decodeURIComponent(plus ? raw.replace(/\+/g, ' ') : raw);
}

const badEscape = (rawName: string): string =>
  `Mã hóa phần trăm (percent-encoding) không hợp lệ trong tham số "${rawName.slice(0, 40)}".`;
const badControl = (name: string): string =>
  `Tham số "${name.slice(0, 40)}" chứa ký tự điều khiển không hợp lệ.`;

/**
 * Decodes a raw query string strictly: malformed escapes are reported, not silently passed on. The
 * first fault is the error; parsing goes on past it, so that every parameter whose name can be read
 * is still seen (a key sent in the query string is refused even behind a malformed parameter), with
 * '' for a value that cannot be used.
 */
export function parseQuery(raw: string): ParsedQuery {
  const pairs: [string, string][] = [];
  let error: string | undefined;
  if (raw === '') return { pairs };
  for (const part of nonEmptyParts(raw, '&')) {
    const eq = part.indexOf('=');
    const rawName = eq === -1 ? part : part.slice(0, eq);
    const name = readable(rawName);
    if (name === undefined || CONTROL.test(name)) {
      error ??= name === undefined ? badEscape(rawName) : badControl(name);
      continue;
    }
    const value = eq === -1 ? '' : readable(part.slice(eq + 1));
    if (value === undefined || CONTROL.test(value)) {
      error ??= value === undefined ? badEscape(rawName) : badControl(name);
      pairs.push([name, '']);
    } else pairs.push([name, value]);
  }
  return error === undefined ? { pairs } : { pairs, error };
}

function readable(raw: string): string | undefined {
  try {
    return decode(raw);
  } catch {
    return undefined;
  }
}
