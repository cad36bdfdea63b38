import { oldStyleTones } from '../../util/tone-placement';

/** Unit types, as the `level` field and filter spell them. */
export const PROVINCE_LEVELS = ['tinh', 'thanh-pho'] as const;
export const WARD_LEVELS = ['phuong', 'xa', 'dac-khu'] as const;
/** Before 2025 there were also towns (thị trấn); five island districts had no communes at all. */
export const LEGACY_WARD_LEVELS = ['phuong', 'xa', 'thi-tran', 'huyen'] as const;

export type ProvinceLevel = (typeof PROVINCE_LEVELS)[number];
export type WardLevel = (typeof WARD_LEVELS)[number];
export type LegacyWardLevel = (typeof LEGACY_WARD_LEVELS)[number];

const PREFIXES: readonly (readonly [string, string])[] = [
  ['thành phố ', 'thanh-pho'],
  ['tỉnh ', 'tinh'],
  ['phường ', 'phuong'],
  ['xã ', 'xa'],
  ['đặc khu ', 'dac-khu'],
  ['thị trấn ', 'thi-tran'],
  ['huyện ', 'huyen'],
];

/**
 * Splits "Phường Ba Đình" into its type and name. Case-insensitive: the sources also write
 * "xã Bắc Sơn" and "Thị Trấn …".
 */
export function splitUnitName(fullName: string): { level: string; name: string } {
  const text = tidySpaces(fullName);
  const lower = text.toLowerCase();
  for (const [prefix, level] of PREFIXES) {
    if (lower.startsWith(prefix)) return { level, name: text.slice(prefix.length).trim() };
  }
  throw new Error(`unknown administrative unit type in "${fullName}"`);
}

export function levelOf<L extends string>(fullName: string, allowed: readonly L[]): L {
  const { level } = splitUnitName(fullName);
  if (!(allowed as readonly string[]).includes(level))
    throw new Error(`"${fullName}": type ${level} not one of ${allowed.join(', ')}`);
  return level as L;
}

/** NFC, single spaces, none at the ends: the sources have "Xã Cò  Nòi" and trailing spaces. */
function tidySpaces(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/** "xã Bắc Sơn" → "Xã Bắc Sơn": the type word always starts upper case. */
export function tidyFullName(fullName: string): string {
  const t = tidySpaces(fullName);
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** A comparison key: NFC, lower case, tone marks placed one way, single spaces. */
export function spellingKey(text: string): string {
  return oldStyleTones(tidySpaces(text).toLowerCase());
}
