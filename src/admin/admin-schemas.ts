import { z } from 'zod';
import { isCidr } from '../config/trusted-proxies';
import { parseIsoDateTime } from '../util/iso-time';
import { canBeStored } from './admin-kit';

/**
 * A date-time (or a date: its 00:00) that exists: 2030-02-30 and year 0000 are refused, not moved.
 * Without an offset it is read in the service's zone (plans.timezone), where days and months
 * reset, never in the process's own zone.
 */
const isoDate = (timeZone: string) =>
  z.string().transform((s, ctx) => {
    const ms = parseIsoDateTime(s, { zone: 'optional', localZone: timeZone, dateOnly: true });
    if (ms !== undefined) return ms;
    ctx.addIssue({ code: 'custom', message: 'an ISO 8601 date-time' });
    return z.NEVER;
  });

/** One schema per zone, built when the zone is first seen (a reload may change it), not per request. */
function perZone<T>(build: (timeZone: string) => T): (timeZone: string) => T {
  const built = new Map<string, T>();
  return (timeZone) => {
    let schema = built.get(timeZone);
    if (schema === undefined) built.set(timeZone, (schema = build(timeZone)));
    return schema;
  };
}

export const createAccountBody = z
  .object({
    // RFC 5321's limits: 64 octets before the @ and 254 in all (what a mail server will deliver to).
    email: z
      .email()
      .max(254)
      .refine((e) => Buffer.byteLength(e.slice(0, e.lastIndexOf('@'))) <= 64, {
        message: 'the part before @ is at most 64 bytes (RFC 5321)',
      }),
    plan: z.string().min(1),
    email_verified: z.boolean().default(false),
  })
  .strict();

export const patchAccountBodyIn = perZone((timeZone) =>
  z
    .object({
      plan: z.string().min(1).optional(),
      email_verified: z.boolean().optional(),
      restricted_until: isoDate(timeZone).nullable().optional(),
    })
    .strict(),
);

export const findAccountQuery = z.object({ email: z.string().min(1).max(320) }).strict();

export const createKeyBodyIn = perZone((timeZone) =>
  z
    .object({
      expires_at: isoDate(timeZone).nullable().optional(),
      ip_allowlist: z
        .array(
          z
            .string()
            .refine(isCidr, 'an IPv4/IPv6 address or CIDR, IPv4 in dotted decimal, without a zone index'),
        )
        .max(100)
        .default([]),
    })
    .strict(),
);

/** The most credits one purchase adds (the admin CLI checks it before asking). */
export const MAX_CREDIT_AMOUNT = 1_000_000_000;

export const creditsBody = z
  .object({
    // The bounds before int(): past 2^53 zod names its own bound first, not the one that applies.
    amount: z.number().min(1).max(MAX_CREDIT_AMOUNT).int(),
    reference: z
      .string()
      .min(1)
      .max(200)
      .refine(canBeStored, 'text without NUL characters or unpaired surrogates')
      // A blank reference names no purchase: two different blank ones would look alike in the ledger.
      .refine((s) => /\S/.test(s), 'a reference with a visible character, not only spaces'),
  })
  .strict();
