/**
 * Text we write ourselves is bilingual: Vietnamese first (the product's language, as in error
 * messages), English second. Swagger UI renders descriptions as CommonMark.
 */
export function bi(vi: string, en: string): string {
  return `${vi}\n\n*${en}*`;
}

/** Short one-line form for summaries and titles. */
export function biShort(vi: string, en: string): string {
  return vi === en ? vi : `${vi} / ${en}`;
}
