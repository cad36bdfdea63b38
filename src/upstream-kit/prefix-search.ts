import type { Binder } from './build-query';
import type { SearchMode, SortContext } from './dataset-spec';
import {
  APOSTROPHES,
  escapeLike,
  foldText,
  rankTextExpr,
  typedWords,
  wordVectorExpr,
} from './normalize-keyword';
import { expandAliases, foldIy, iyVariant, leadingKind, prefixQueryText } from './rank-terms';
import type { LeadingKind } from './rank-terms';

/** A keyword search, built: its WHERE conditions and what its sort options may use. */
export interface BuiltSearch {
  conds: string[];
  keywords: string;
  expr: string;
  mode: SearchMode;
  modeName: string;
  /** Folded [a-z0-9]+ terms of a `prefix` search. */
  terms?: string[];
  /** A `prefix` search's condition on its first column alone (see SortContext.matchesFirstColumn). */
  firstColumn?: string;
  /** A `prefix` search's words as typed, when they carry diacritics (see SortContext.typed). */
  typed?: string;
  /** All of q, folded, when it starts with a kind (see SortContext.lead). */
  rank?: { all: string };
  /** `keywords` before every y was read as i, when it was (see SortContext.codeKeywords). */
  codeKeywords?: string;
}

/** A `prefix` search (see SearchMode): every word of q starts a word of one of the columns. */
export function buildPrefixSearch(raw: string, mode: SearchMode, modeName: string, b: Binder): BuiltSearch {
  const expr = mode.rankText ?? rankTextExpr(mode.columns[0] ?? '');
  // Only letters and digits reach the tsquery (see prefixQueryText).
  const { terms: typedTerms, sizes } = splitTerms(raw);
  if (typedTerms.length === 0) return { conds: ['FALSE'], keywords: '', expr, mode, modeName };
  // q's words as typed, diacritics kept, where each folds to its term: the typed spelling ranks.
  const words = typedWords(raw);
  const spelled = words.length === typedTerms.length && words.every((w, i) => foldText(w) === typedTerms[i]);
  const kind = leadingKind(typedTerms, spelled ? words : undefined, mode.leadingWords);
  const skip = kind?.length ?? 0;
  const rest = typedTerms.slice(skip);
  const tsq = prefixQuery(typedTerms, kind, mode, b);
  const vectors = mode.columns.map((c, i) => mode.vectors?.[i] ?? wordVectorExpr(c));
  const matches = vectors.map((v) => `${v} @@ ${tsq}`);
  const conds = ['(' + matches.join(' OR ') + ')'];
  // After a kind, the rest of q names the record: its first column (the name without its kind)
  // holds it, or "phường phú" would find every Phường by the "phu" in its kind.
  if (kind && rest.length > 0) conds.push(`${vectors[0]} @@ ${prefixQuery(rest, undefined, mode, b)}`);
  // A kind alone ("tp") ranks as its words; otherwise the rest of q ranks the names, a word
  // written with apostrophes as one, as rankTextExpr has the names' ("d'ran", "dran": D'Ran).
  const rankRest = joined(typedTerms, sizes, skip);
  const keywords = (rankRest.length > 0 ? expandAliases(rankRest, mode.aliases) : kind!.words).join(' ');
  // Only when it carries diacritics; an alias written out is no longer what was typed.
  const typedRest = spelled ? joined(words, sizes, skip).join(' ') : undefined;
  const typed = keywords === rankRest.join(' ') && typedRest !== keywords ? typedRest : undefined;
  // "kì anh" is Kỳ Anh as much as Kì Anh: the ranking then compares names and q with every y an i.
  const iy = mode.iyVariants === true && typedTerms.some((t) => iyVariant(t) !== undefined);
  const ranked = (text: string): string => (iy ? foldIy(text) : text);
  return {
    conds,
    keywords: ranked(keywords),
    expr: iy ? `translate(${expr}, 'y', 'i')` : expr,
    mode,
    modeName,
    terms: typedTerms,
    firstColumn: matches[0],
    typed,
    rank: kind && rest.length > 0 ? { all: ranked(joined(typedTerms, sizes, 0).join(' ')) } : undefined,
    codeKeywords: iy ? keywords : undefined,
  };
}

/** What separates q's words as written: a word keeps the apostrophes inside it. */
const WRITTEN_WORD_GAP = new RegExp(`[^a-z0-9${APOSTROPHES}]+`);

/**
 * q's folded words, split at every character other than a letter or a digit as the tsquery takes
 * them, and `sizes`: how many of them each word as written holds, more than one where apostrophes
 * sit inside it ("d'ran" holds "d" and "ran").
 */
function splitTerms(raw: string): { terms: string[]; sizes: number[] } {
  const terms: string[] = [];
  const sizes: number[] = [];
  for (const written of foldText(raw).split(WRITTEN_WORD_GAP)) {
    const parts = written.split(/[^a-z0-9]+/).filter(Boolean);
    if (parts.length === 0) continue;
    terms.push(...parts);
    sizes.push(parts.length);
  }
  return { terms, sizes };
}

/**
 * `items`, one for each term of splitTerms, with those of each word as written joined into one,
 * the first `skip` left out; a written word that `skip` cuts into keeps its remaining parts apart.
 */
function joined(items: readonly string[], sizes: readonly number[], skip: number): string[] {
  const out: string[] = [];
  let start = 0;
  for (const size of sizes) {
    const end = start + size;
    if (start >= skip) out.push(items.slice(start, end).join(''));
    else if (end > skip) out.push(...items.slice(skip, end));
    start = end;
  }
  return out;
}

function prefixQuery(
  terms: readonly string[],
  kind: LeadingKind | undefined,
  mode: SearchMode,
  b: Binder,
): string {
  return `to_tsquery('simple'::regconfig, ${b.bind(prefixQueryText(terms, kind, mode.aliases, mode.iyVariants))})`;
}

export function leadConditions(
  expr: string,
  rank: NonNullable<BuiltSearch['rank']>,
  b: Binder,
): SortContext['lead'] {
  return {
    exact: `${expr} = ${b.bind(rank.all)}`,
    startsWithAll: `${expr} LIKE ${b.bind(escapeLike(rank.all) + '%')}`,
  };
}

export function spelledExpr(mode: SearchMode): string {
  return mode.spelled?.[0] ?? `public.f_spelling(${mode.columns[0]})`;
}
