import { KEY_PARAMS } from '../accounts/api-keys';
import { withinChars } from '../upstream-kit/parse-params';
import { readPoint } from '../upstream-kit/parse-point';
import type { ParamSpec } from './datasets-schema';
import { CALENDAR_DATE_RULE, isCalendarDate } from '../util/iso-time';

export type ParamCheck = { ok: true; value: string } | { ok: false; reason: string };

export interface ParamValidator {
  name: string;
  spec: ParamSpec;
  /** Normalised default forwarded when the caller gives none. */
  defaultValue: string | undefined;
  /** `name=` as it is written in the upstream's query string (encoded once, here). */
  queryName: string;
  /** `name=default`, encoded, or undefined without a default. */
  defaultPart: string | undefined;
  check(raw: string): ParamCheck;
}

// Leading zeros are the same number (`007` is 7); what follows them is bounded, so Number() is exact.
const INTEGER = /^-?0*\d{1,15}$/;
const ID = /^0*\d{1,10}$/;

const ok = (value: string): ParamCheck => ({ ok: true, value });
const bad = (reason: string): ParamCheck => ({ ok: false, reason });

function checker(spec: ParamSpec): (raw: string) => ParamCheck {
  switch (spec.type) {
    case 'string':
      return (raw) => (withinChars(raw, spec.max_length) ? ok(raw) : bad(`dài tối đa ${spec.max_length} ký tự`));
    case 'integer':
      return (raw) => {
        if (!INTEGER.test(raw)) return bad('phải là số nguyên');
        const n = Number(raw);
        if (spec.min !== undefined && n < spec.min) return bad(`tối thiểu ${spec.min}`);
        if (spec.max !== undefined && n > spec.max) return bad(`tối đa ${spec.max}`);
        return ok(String(n));
      };
    case 'id':
      return (raw) => {
        const n = Number(raw);
        return ID.test(raw) && n >= 1 && n <= 2_147_483_647
          ? ok(String(n))
          : bad('phải là mã số nguyên dương, không quá 2147483647');
      };
    case 'boolean':
      return (raw) => {
        const v = raw.toLowerCase();
        if (v === 'true' || v === '1') return ok('true');
        if (v === 'false' || v === '0') return ok('false');
        return bad('phải là true hoặc false');
      };
    case 'date':
      return (raw) => (isCalendarDate(raw) ? ok(raw) : bad(CALENDAR_DATE_RULE));
    case 'enum': {
      const allowed = new Set(spec.values);
      return (raw) => (allowed.has(raw) ? ok(raw) : bad(`phải là một trong: ${spec.values.join(', ')}`));
    }
    case 'point':
      return (raw) => {
        const p = readPoint(raw);
        if (!('fault' in p)) return ok(p.text);
        return bad(p.fault === 'shape' ? 'phải có dạng lat,lng (độ thập phân)' : 'vĩ độ trong [-90, 90], kinh độ trong [-180, 180]');
      };
  }
}

/** Compiles every declared parameter once; a bad default is a config error. */
export function compileParamValidators(
  params: Record<string, ParamSpec>,
  fail: (path: string, reason: string) => Error,
): Map<string, ParamValidator> {
  const out = new Map<string, ParamValidator>();
  for (const [name, spec] of Object.entries(params)) {
    if (name === 'page' || name === 'per_page') throw fail(name, 'page and per_page are handled by the gateway');
    if (KEY_PARAMS.has(name.toLowerCase()))
      throw fail(name, 'the gateway refuses this name in a query string as an API key (401), so no caller could use it');
    if (spec.type === 'integer' && spec.min !== undefined && spec.max !== undefined && spec.min > spec.max)
      throw fail(`${name}.min`, `min ${spec.min} is above max ${spec.max}: no value would pass`);
    const check = checker(spec);
    let defaultValue: string | undefined;
    if ('default' in spec && spec.default !== undefined) {
      const res = check(String(spec.default));
      if (!res.ok) throw fail(`${name}.default`, `default does not validate: ${res.reason}`);
      defaultValue = res.value;
    }
    const queryName = `${encodeURIComponent(name)}=`;
    const defaultPart = defaultValue === undefined ? undefined : queryName + encodeURIComponent(defaultValue);
    out.set(name, { name, spec, defaultValue, queryName, defaultPart, check });
  }
  return out;
}
