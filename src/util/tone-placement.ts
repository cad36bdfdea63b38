// Old style puts the tone mark on the first vowel of oa/oe/uy ending a syllable (Hòa, Thủy), new
// style on the second (Hoà, Thuỷ). Both spellings name the same place and people type either, so
// comparisons of spellings fold them together: in code (admin-units reconcile) and in SQL
// (public.f_spelling). Where a letter follows, the mark has one place (Hoài, Hoàng, Toàn): those
// are left alone, so that "hòa" does not start "hoài". The letters that can follow are ASCII,
// which keeps the SQL's test free of the database's locale.

/** [new style, old style], lower case. */
export const TONE_PLACEMENT_PAIRS: readonly (readonly [string, string])[] = [
  ['oà', 'òa'],
  ['oá', 'óa'],
  ['oả', 'ỏa'],
  ['oã', 'õa'],
  ['oạ', 'ọa'],
  ['oè', 'òe'],
  ['oé', 'óe'],
  ['oẻ', 'ỏe'],
  ['oẽ', 'õe'],
  ['oẹ', 'ọe'],
  ['uỳ', 'ùy'],
  ['uý', 'úy'],
  ['uỷ', 'ủy'],
  ['uỹ', 'ũy'],
  ['uỵ', 'ụy'],
];

const SYLLABLE_END = '(?![a-z])';

const RULES = TONE_PLACEMENT_PAIRS.map(
  ([newStyle, oldStyle]) => [new RegExp(newStyle + SYLLABLE_END, 'g'), oldStyle] as const,
);

/** Lower-case text with every tone mark of a syllable-ending oa/oe/uy placed the old way. */
export function oldStyleTones(lowerCase: string): string {
  return RULES.reduce((t, [newStyle, oldStyle]) => t.replace(newStyle, oldStyle), lowerCase);
}

/**
 * public.f_spelling(text): lower case, syllable-ending tone marks placed the old way; what the kit's
 * relevance order compares a q typed with diacritics against. IMMUTABLE so that a column can store
 * it. migrate() creates it once per database and never replaces it: columns hold its values, so a
 * new definition needs a migration that replaces it and rewrites them.
 */
export const F_SPELLING_SQL = `CREATE OR REPLACE FUNCTION public.f_spelling(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$ SELECT ${TONE_PLACEMENT_PAIRS.reduce(
  (sql, [newStyle, oldStyle]) => `regexp_replace(${sql}, '${newStyle}${SYLLABLE_END}', '${oldStyle}', 'g')`,
  'lower($1)',
)} $$`;
