import { z } from 'zod';
import { isCalendarDate } from '../upstream-kit';

/** Field validators shared by the import schemas. */
export const isoDate = z.string().refine(isCalendarDate, 'must be a real date YYYY-MM-DD');
export const isoDateTime = z.string().refine((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)), 'must be an ISO date-time with zone');
export const prefixedId = (prefix: string): z.ZodString => z.string().regex(new RegExp(`^${prefix}[A-Za-z0-9_-]{1,64}$`), `must start with ${prefix}`);
export const positiveInt = z.number().int().min(1).max(2_147_483_647);
