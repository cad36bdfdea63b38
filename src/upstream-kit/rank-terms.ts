import { escapeLike, foldText } from './normalize-keyword';

/** A record's kind at the start of q: how many of q's words name it, and the words names use for it. */
export interface LeadingKind {
  readonly length: number;
  readonly words: readonly string[];
}

/**
 * The kind q's first words name ("phường", "thị trấn", "tp": `kinds` maps each, as typed, to the
 * folded words full names use); the longest that fits. A word typed with other diacritics than the
 * kind's is a name, not the kind ("phương", "xà"); one typed without any may be either.
 * `typed`: q's words as typed (typedWords), one for each of the folded `terms`, when they are.
 */
export function leadingKind(
  terms: readonly string[],
  typed: readonly string[] | undefined,
  kinds: Readonly<Record<string, string>> | undefined,
): LeadingKind | undefined {
  let best: LeadingKind | undefined;
  for (const kind of kinds ? compiledKinds(kinds) : []) {
    const { spelled, folded } = kind;
    const fits =
      spelled.length <= terms.length &&
      spelled.every((k, i) => terms[i] === folded[i] && (!typed || typed[i] === k || typed[i] === terms[i]));
    if (fits && spelled.length > (best?.length ?? 0)) best = kind.lead;
  }
  return best;
}

interface CompiledKind {
  spelled: string[];
  folded: string[];
  lead: LeadingKind;
}

// A mode's kinds table is declared once, with its dataset; split and folded on its first use.
const compiled = new WeakMap<Readonly<Record<string, string>>, CompiledKind[]>();

function compiledKinds(kinds: Readonly<Record<string, string>>): CompiledKind[] {
  let list = compiled.get(kinds);
  if (!list) {
    list = Object.entries(kinds).map(([spelling, meaning]) => {
      const spelled = spelling.split(' ');
      return {
        spelled,
        folded: spelled.map(foldText),
        lead: { length: spelled.length, words: meaning.split(' ') },
      };
    });
    compiled.set(kinds, list);
  }
  return list;
}

type Aliases = Readonly<Record<string, string>> | undefined;

/** The words a typed word stands for: an own entry only, so "constructor" is a word, not Object's. */
const aliasWords = (aliases: Aliases, t: string): string[] | undefined =>
  aliases && Object.hasOwn(aliases, t) ? aliases[t]!.split(' ') : undefined;

// A consonant, then i or y and nothing else: the syllables Vietnamese writes either way (kì and kỳ,
// lí and lý, mĩ and mỹ, quí and quý, sĩ and sỹ, hi and hy, tí and tý, vi and vy). After other
// consonants, and where another vowel comes before (tai and tay, tui and tuy), i and y are
// different words.
const IY_SYLLABLE = /^(h|k|l|m|qu|s|t|v)([iy])$/;

/** A folded word's other spelling, when it is a syllable written with a final i or y alike. */
export function iyVariant(term: string): string | undefined {
  const m = IY_SYLLABLE.exec(term);
  return m ? m[1]! + (m[2] === 'i' ? 'y' : 'i') : undefined;
}

/** Folded text with every y an i, as the ranking compares names when q holds such a syllable. */
export function foldIy(text: string): string {
  return text.replace(/y/g, 'i');
}

/**
 * A tsquery's text: every term starts a word of the column. The kind at q's start and a term with
 * an alias ("thpt" → "trung hoc pho thong") may instead be their words, whole and in a row. Only
 * [a-z0-9] words and the query's own operators reach it, so its syntax can be neither injected nor
 * broken; a word typed twice is asked once.
 */
export function prefixQueryText(
  terms: readonly string[],
  kind: LeadingKind | undefined,
  aliases: Aliases,
  iyVariants = false,
): string {
  const starts = (own: readonly string[]): string => own.map((t) => `${t}:*`).join(' & ');
  const either = (own: readonly string[], words: readonly string[]): string =>
    `((${starts(own)}) | (${words.join(' <-> ')}))`;
  const lead = kind ? [either(terms.slice(0, kind.length), kind.words)] : [];
  const rest = terms.slice(kind?.length ?? 0).map((t) => {
    const words = aliasWords(aliases, t);
    if (words) return either([t], words);
    // The other spelling is a whole word: "ly" may be on its way to no other word, "li" to Linh.
    const other = iyVariants ? iyVariant(t) : undefined;
    return other ? either([t], [other]) : `${t}:*`;
  });
  return [...new Set([...lead, ...rest])].join(' & ');
}

/** The terms with every alias written out, as the ranking compares them with names. */
export function expandAliases(terms: readonly string[], aliases: Aliases): string[] {
  return terms.flatMap((t) => aliasWords(aliases, t) ?? [t]);
}

/**
 * A LIKE pattern of the typed words (see SortContext.typed) where a word typed without diacritics
 * takes any: its letters that can carry one match any character ("phù my" → "phù m_", which Phù
 * Mỹ's spelling fits). Folded and NFC words have the same length, one character a letter.
 */
export function typedPattern(typed: string): string {
  return typed
    .split(' ')
    .map((w) => (w === foldText(w) ? w.replace(/[aeiouyd]/g, '_') : escapeLike(w)))
    .join(' ');
}
