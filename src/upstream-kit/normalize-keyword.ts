/**
 * Folds text the way the database folds the searched columns with lower(public.f_unaccent(col)):
 * no diacritics, đ → d, lower case. Doing it here too lets the pattern be a plain bound value, so
 * the planner can estimate it and use the trigram index.
 */
export function foldText(text: string): string {
  return (
    text
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      // Đ/đ, and the look-alike eth Ð/ð that text from older encodings carries (unaccent folds it too).
      .replace(/[đĐðÐ]/g, 'd')
      .toLowerCase()
  );
}

/** The words of q as typed: NFC, lower case, split at every character other than a letter or a digit. */
export function typedWords(raw: string): string[] {
  return raw
    .normalize('NFC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Splits folded keywords into words; punctuation other than the code characters - / . separates words. */
export function keywordWords(text: string): string[] {
  return foldText(text)
    .split(/[^\p{L}\p{N}\-/.:]+/u)
    .filter((w) => w.length > 0);
}

/** Escapes LIKE wildcards so user text matches literally (the default escape character is \). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => '\\' + c);
}

/** The SQL expression a searched column is folded with; indexes must use exactly this expression. */
export function foldedExpr(column: string): string {
  return `lower(public.f_unaccent(${column}))`;
}

/**
 * The words a `prefix` search matches, as a tsvector: the folded column split at every character
 * other than a letter or a digit, as the query's words are. The 'simple' parser alone keeps
 * "h01.05" or "tp.hcm" as one word and splits "19-5" into "19" and "-5", so a code could not be
 * found by its own or by its parts. Indexes must use exactly this expression.
 *
 * `joinApostrophes`: a word written with an apostrophe inside (Ea H'leo, Cư M'gar, D'Ran; unaccent
 * makes ’ an ') is also a word without it, as people type it both ways. For stored columns (see
 * SearchMode.vectors): the query side reads this expression only through them.
 */
export function wordVectorExpr(column: string, opts: { joinApostrophes?: boolean } = {}): string {
  const f = foldedExpr(column);
  const text = opts.joinApostrophes ? `${f} || ' ' || replace(${f}, '''', '')` : f;
  return `to_tsvector('simple'::regconfig, ${wordsOf(text)})`;
}

/**
 * What the relevance order of a `prefix` search compares q with: the folded column's words joined
 * by single spaces, a word written with apostrophes inside as one ("Ea H'leo" → "ea hleo", "Văn
 * Miếu - Quốc Tử Giám" → "van mieu quoc tu giam"), as q's words are (see buildPrefixSearch).
 * Indexes and stored columns (SearchMode.rankText) must use exactly this expression.
 */
export function rankTextExpr(column: string): string {
  return `btrim(${wordsOf(`replace(${foldedExpr(column)}, '''', '')`)})`;
}

// The punctuation names carry between or inside words; translate() and a run of spaces keep the
// expression free of the database's locale, which a [[:punct:]] class would not be.
const NAME_PUNCTUATION = `-–—.,;:()/&"`;

/** The apostrophes written inside a word (D'Ran, M’Droh): such a word is one word, without them. */
export const APOSTROPHES = `'’‘ʼ`;
const APOSTROPHES_SQL = APOSTROPHES.replace("'", "''");

/**
 * A column's public.f_spelling with the words as rankTextExpr has them: apostrophes dropped, the
 * punctuation of NAME_PUNCTUATION a space, runs of spaces one. For the typed-spelling tier, which
 * compares it only on the rows of a tier.
 */
export function spelledWordsExpr(spelled: string): string {
  const spaces = ' '.repeat(NAME_PUNCTUATION.length);
  return `btrim(regexp_replace(translate(${spelled}, '${NAME_PUNCTUATION}${APOSTROPHES_SQL}', '${spaces}'), ' {2,}', ' ', 'g'))`;
}

/** The folded column's words joined by single spaces, as q's folded terms are: "H01.05" → "h01 05". */
export function wordTextExpr(column: string): string {
  return wordsOf(foldedExpr(column));
}

function wordsOf(text: string): string {
  return `regexp_replace(${text}, '[^a-z0-9]+', ' ', 'g')`;
}
