/** Epoch milliseconds (or nothing) as the ISO 8601 text the APIs and SQL parameters use. */
export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
