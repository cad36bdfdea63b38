import type { ParamType, ParamValue } from './dataset-spec';
import { parsePointParam } from './parse-point';
import { CALENDAR_DATE_RULE, isCalendarDate } from '../util/iso-time';
import { invalidParam } from './upstream-error';

/** Raw query values as Express hands them over (repeated keys give arrays, brackets give objects). */
export type RawQuery = Record<string, unknown>;

export const MAX_PER_PAGE = 1000;
export const DEFAULT_PER_PAGE = 20;

/** Returns the single string value of a parameter, undefined when absent, 422 when repeated or nested. */
export function singleValue(query: RawQuery, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalidParam(name, `Tham số ${name} chỉ được truyền một lần, dạng chuỗi.`);
  return v;
}

/**
 * Whether text has at most `max` characters as a reader counts them, the gateway and the kit alike:
 * code points of the composed (NFC) form, so an emoji is one (not two UTF-16 units) and "ế" sent
 * decomposed is one (not three). UTF-16 units are never fewer than code points: that test first.
 */
export function withinChars(raw: string, max: number): boolean {
  return raw.length <= max || [...raw].length <= max || [...raw.normalize('NFC')].length <= max;
}

export function parseParam(name: string, raw: string, spec: ParamType): ParamValue {
  switch (spec.type) {
    case 'string': {
      const max = spec.maxLength ?? 200;
      if (!withinChars(raw, max)) throw invalidParam(name, `Tham số ${name} dài quá ${max} ký tự.`);
      return raw;
    }
    case 'integer': {
      if (!/^-?\d{1,15}$/.test(raw)) throw invalidParam(name, `Tham số ${name} phải là số nguyên.`);
      const n = Number(raw);
      // Integer columns are int4; a larger value could only fail in the database.
      if (Math.abs(n) > 2_147_483_647) throw invalidParam(name, `Tham số ${name} nằm ngoài khoảng cho phép.`);
      if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
        throw invalidParam(name, `Tham số ${name} nằm ngoài khoảng cho phép.`);
      }
      return n;
    }
    case 'boolean': {
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      throw invalidParam(name, `Tham số ${name} phải là true hoặc false.`);
    }
    case 'date': {
      if (!isCalendarDate(raw)) throw invalidParam(name, `Tham số ${name} ${CALENDAR_DATE_RULE}.`);
      return raw;
    }
    case 'enum': {
      if (!spec.values.includes(raw))
        throw invalidParam(name, `Tham số ${name} phải là một trong: ${spec.values.join(', ')}.`);
      return raw;
    }
    case 'point':
      return parsePointParam(name, raw);
  }
}

export interface Paging {
  page: number;
  perPage: number;
}

/** The gateway bounds paging already; the upstream still clamps so it is safe when called directly. */
export function parsePaging(query: RawQuery): Paging {
  const page = optionalInt(query, 'page') ?? 1;
  const perPage = optionalInt(query, 'per_page') ?? DEFAULT_PER_PAGE;
  return { page: Math.max(1, page), perPage: Math.min(MAX_PER_PAGE, Math.max(1, perPage)) };
}

function optionalInt(query: RawQuery, name: string): number | undefined {
  const raw = singleValue(query, name);
  if (raw === undefined || raw === '') return undefined;
  if (!/^-?\d{1,9}$/.test(raw)) throw invalidParam(name, `Tham số ${name} phải là số nguyên.`);
  return Number(raw);
}
