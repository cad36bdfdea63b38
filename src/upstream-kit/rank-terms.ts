import { escapeLike, foldText } from './normalize-keyword';

/** A record's kind at the start of q: how many of q's words name it, and the words names use for it. */
export interface LeadingKind {
  length: number;
  words: string[];
}

/**
 * The kind q's first folded words name ("phuong", "thi tran", "tp"), when other words follow; the
 * longest that fits. Names are stored without their kind ("Phú Hòa" in "Phường Phú Hòa"), so
 * ranking by the rest puts the named record first.
 */
export function leadingKind(
  terms: readonly string[],
  kinds: Readonly<Record<string, string>> | undefined,
): LeadingKind | undefined {
  let best: LeadingKind | undefined;
  for (const [spelling, meaning] of Object.entries(kinds ?? {})) {
    const words = spelling.split(' ');
    const fits = words.length < terms.length && words.every((w, i) => terms[i] === w);
    if (fits && words.length > (best?.length ?? 0))
      best = { length: words.length, words: meaning.split(' ') };
  }
  return best;
}

/** The typed words (see typedKeywords) past the first `lead`, when they still carry diacritics. */
export function typedRest(typed: string | undefined, lead: number, keywords: string): string | undefined {
  if (typed === undefined || lead === 0) return typed;
  const rest = typed.split(' ').slice(lead).join(' ');
  return rest === keywords ? undefined : rest;
}

type Aliases = Readonly<Record<string, string>> | undefined;

/**
 * A tsquery's text: every term starts a word of the column; a term with an alias ("thpt" → "trung
 * hoc pho thong") may instead be the alias's words. Only [a-z0-9] words and the query's own
 * operators reach it, so its syntax can be neither injected nor broken.
 */
export function prefixQueryText(terms: readonly string[], aliases: Aliases): string {
  const words = (text: string): string =>
    text
      .split(' ')
      .map((w) => `${w}:*`)
      .join(' & ');
  return terms.map((t) => (aliases?.[t] ? `(${t}:* | (${words(aliases[t])}))` : `${t}:*`)).join(' & ');
}

/** The terms with every alias written out, as the ranking compares them with names. */
export function expandAliases(terms: readonly string[], aliases: Aliases): string[] {
  return terms.flatMap((t) => aliases?.[t]?.split(' ') ?? [t]);
}

/**
 * A LIKE pattern of the typed words (see typedKeywords) where a word typed without diacritics
 * takes any: its letters that can carry one match any character ("phù my" → "phù m_", which Phù
 * Mỹ's spelling fits). Folded and NFC words have the same length, one character a letter.
 */
export function typedPattern(typed: string): string {
  return typed
    .split(' ')
    .map((w) => (w === foldText(w) ? w.replace(/[aeiouyd]/g, '_') : escapeLike(w)))
    .join(' ');
}
