import type { ParamValue } from './dataset-spec';
import { invalidParam } from './upstream-error';

/** A coordinate in decimal degrees (WGS 84), as the `point` parameter carries it. */
export interface LatLng {
  lat: number;
  lng: number;
}

/**
 * A coordinate in decimal degrees, as the gateway accepts it too (src/config/param-validators.ts),
 * so a value it forwards always parses: up to 20 decimals, since a double printed by a program
 * (21.028499999999998) carries 15 or more.
 */
export const COORDINATE = /^-?\d{1,3}(\.\d{1,20})?$/;

/**
 * A coordinate's text in one spelling (no leading zeros, no trailing fractional zeros, no "-0"),
 * written from its digits: printing the parsed number would give exponent form below 1e-6
 * (0.0000001 → "1e-7"), which COORDINATE then refuses.
 */
function canonicalCoordinate(text: string): string {
  const negative = text.startsWith('-');
  const [whole = '', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const digits = whole.replace(/^0+(?=\d)/, '');
  const decimals = fraction.replace(/0+$/, '');
  const plain = decimals ? `${digits}.${decimals}` : digits;
  return negative && /[1-9]/.test(plain) ? `-${plain}` : plain;
}

/** Whether a canonical coordinate's magnitude exceeds the bound: its whole degrees, then any fraction at the bound. */
function beyond(text: string, bound: number): boolean {
  const [whole = '', fraction] = text.replace('-', '').split('.');
  const degrees = Number(whole);
  return degrees > bound || (degrees === bound && fraction !== undefined);
}

/** A `point` value read: the coordinate and its canonical "lat,lng", or what is wrong with it. */
export type PointReading = (LatLng & { text: string }) | { fault: 'shape' | 'range' };

/** Reads "lat,lng", the one reading the gateway's validator and the upstreams share. */
export function readPoint(raw: string): PointReading {
  const parts = raw.split(',').map((s) => s.trim());
  if (parts.length !== 2 || !parts.every((p) => COORDINATE.test(p))) return { fault: 'shape' };
  const [latText, lngText] = parts.map(canonicalCoordinate) as [string, string];
  // On the digits: a double rounds 90.000000000000000001 to 90, which would pass, and its text,
  // forwarded as written, would not.
  if (beyond(latText, 90) || beyond(lngText, 180)) return { fault: 'range' };
  return { lat: Number(latText), lng: Number(lngText), text: `${latText},${lngText}` };
}

/** Parses "lat,lng"; undefined when malformed or out of range. */
export function readLatLng(raw: string): LatLng | undefined {
  const p = readPoint(raw);
  return 'fault' in p ? undefined : { lat: p.lat, lng: p.lng };
}

/** The `point` parameter type: 422 when malformed or out of range, else the canonical "lat,lng". */
export function parsePointParam(name: string, raw: string): string {
  const p = readPoint(raw);
  if ('fault' in p)
    throw invalidParam(
      name,
      `Tham số ${name} phải có dạng lat,lng (độ thập phân), vĩ độ trong [-90, 90], kinh độ trong [-180, 180].`,
    );
  return p.text;
}

/** The coordinate of a value parsed as `point` (what a filter's resolve receives). */
export function pointOf(value: ParamValue): LatLng {
  const p = typeof value === 'string' ? readLatLng(value) : undefined;
  if (!p) throw invalidParam('point', 'Tọa độ không hợp lệ.');
  return p;
}
