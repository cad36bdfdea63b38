export interface ParsedQuery {
  pairs: [string, string][];
  /** Why the query string cannot be used (bad percent-encoding, control characters). */
  error?: string;
}

// Control characters other than ordinary whitespace never belong in a parameter.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Form decoding ('+' is a space); most names and many values need none. */
function decode(raw: string): string {
  const plus = raw.includes('+');
  if (!plus && !raw.includes('%')) return raw;
  return decodeURIComponent(plus ? raw.replace(/\+/g, ' ') : raw);
}

/** Decodes a raw query string strictly: malformed escapes are reported, not silently passed on. */
export function parseQuery(raw: string): ParsedQuery {
  const pairs: [string, string][] = [];
  if (raw === '') return { pairs };
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq === -1 ? part : part.slice(0, eq);
    const rawValue = eq === -1 ? '' : part.slice(eq + 1);
    let name: string;
    let value: string;
    try {
      name = decode(rawName);
      value = decode(rawValue);
    } catch {
      return {
        pairs,
        error: `Mã hóa phần trăm (percent-encoding) không hợp lệ trong tham số "${rawName.slice(0, 40)}".`,
      };
    }
    if (CONTROL.test(name) || CONTROL.test(value)) {
      return { pairs, error: `Tham số "${name.slice(0, 40)}" chứa ký tự điều khiển không hợp lệ.` };
    }
    pairs.push([name, value]);
  }
  return { pairs };
}
