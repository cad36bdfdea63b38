import { z } from 'zod';
import { isCalendarDate, parseIsoDateTime } from '../util/iso-time';

/** Field validators shared by the import schemas. */
export const isoDate = z.string().refine(isCalendarDate, 'must be a real date YYYY-MM-DD');
export const isoDateTime = z
  .string()
  .refine((s) => parseIsoDateTime(s, { zone: 'required', dateOnly: false }) !== undefined, 'must be a real ISO date-time with zone');
export const prefixedId = (prefix: string): z.ZodString => z.string().regex(new RegExp(`^${prefix}[A-Za-z0-9_-]{1,64}$`), `must start with ${prefix}`);
/** The largest PostgreSQL int (int4), what the id and order columns hold. */
const INT4_MAX = 2_147_483_647;
export const positiveInt = z.number().int().min(1).max(INT4_MAX);
/**
 * A link clients will render as one: http or https only, since a javascript: or data: URL would run
 * in the page that shows it.
 */
export const webUrl = z
  .string()
  .max(2000)
  .refine((s) => URL.canParse(s) && ['http:', 'https:'].includes(new URL(s).protocol), 'must be an http:// or https:// URL');
/** A PostgreSQL int (int4) from 0. */
export const nonNegativeInt = z.number().int().min(0).max(INT4_MAX);
