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

/** Parses "lat,lng"; undefined when malformed or out of range. */
export function readLatLng(raw: string): LatLng | undefined {
  const parts = raw.split(',').map((s) => s.trim());
  if (parts.length !== 2 || !parts.every((p) => COORDINATE.test(p))) return undefined;
  const [lat, lng] = parts.map(Number) as [number, number];
  if (lat < -90 || lat > 90 || lng < -180 || lng > 180) return undefined;
  return { lat, lng };
}

/** The `point` parameter type: 422 when malformed or out of range, else the normalised "lat,lng". */
export function parsePointParam(name: string, raw: string): string {
  const p = readLatLng(raw);
  if (!p)
    throw invalidParam(
      name,
      `Tham số ${name} phải có dạng lat,lng (độ thập phân), vĩ độ trong [-90, 90], kinh độ trong [-180, 180].`,
    );
  return `${p.lat},${p.lng}`;
}

/** The coordinate of a value parsed as `point` (what a filter's resolve receives). */
export function pointOf(value: ParamValue): LatLng {
  const p = typeof value === 'string' ? readLatLng(value) : undefined;
  if (!p) throw invalidParam('point', 'Tọa độ không hợp lệ.');
  return p;
}
