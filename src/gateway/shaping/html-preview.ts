import { Parser } from 'htmlparser2';
import { keepsAttribute, TEXT_ATTRIBUTES } from './preview-attributes';

const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);
/** Embedded content: a scan, a PDF, a video is the document itself, text or not. */
const EMBEDDED = new Set([
  'img',
  'iframe',
  'object',
  'embed',
  'video',
  'audio',
  'picture',
  'svg',
  'canvas',
  'math',
]);
/** Text no reader sees (a page's title shows in its tab, not in it). */
const UNSEEN = new Set(['script', 'style', 'template', 'title']);
/**
 * Elements whose content is never part of a preview: what runs, and embedded content, which would
 * show the document (a scanned page, an embedded PDF) without being text to count.
 */
const DROP = new Set([...UNSEEN, ...EMBEDDED, 'noscript', 'source', 'track']);
/**
 * Elements left out while their text stays: what submits or takes input (a button in a preview
 * would submit to the page showing it), what speaks to the page's head (meta, base, link), what a
 * browser would merge into the page's own root (html, body: a dir="rtl" turns the whole page), and
 * what makes the rest of the page text (plaintext is never closed; xmp and listing are obsolete).
 */
const UNWRAP = new Set([
  'html',
  // Unwrapped, not dropped: HTML lets a page leave out </head> and <body>, so what follows an
  // unclosed head (the whole text) is in it for the parser, and shown by a browser.
  'head',
  'body',
  'plaintext',
  'xmp',
  'listing',
  'form',
  'button',
  'input',
  'select',
  'option',
  'optgroup',
  'textarea',
  'meta',
  'base',
  'link',
]);

const PARSE_OPTIONS = {
  decodeEntities: true,
  lowerCaseTags: true,
  lowerCaseAttributeNames: true,
  // As a browser reads HTML: <script/> opens a script (whose text no reader sees) and does not
  // close it. Void elements (br, img) need no slash either way.
  recognizeSelfClosing: false,
};

const escapeText = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string): string => escapeText(s).replace(/"/g, '&quot;');
const isBlank = (c: string): boolean => c.trim() === '';
const countVisible = (chars: readonly string[]): number =>
  chars.reduce((n, c) => (isBlank(c) ? n : n + 1), 0);

/** The index just past the `n`th character that is not white space. */
function pastVisible(chars: readonly string[], n: number): number {
  if (n <= 0) return 0;
  let seen = 0;
  for (let i = 0; i < chars.length; i++) if (!isBlank(chars[i]!) && ++seen === n) return i + 1;
  return chars.length;
}

/**
 * A preview of an HTML document, as HTML: at most `maxChars` characters of text, the '…' that marks
 * the cut among them, and never the whole of it, since a preview stands for a field the plan does
 * not get: a document whose text (white space aside) ends within `maxChars` characters shows its
 * first half. Tags balanced, entities
 * re-escaped, never a split UTF-16 surrogate pair; scripts, styles and embedded content dropped,
 * form controls unwrapped, and of attributes only layout and plain links kept (preview-attributes.ts),
 * with no more tooltip and replacement text in all than `maxChars` characters.
 */
export function htmlPreview(html: string, maxChars: number): string {
  const first = textPrefix(html, maxChars, true);
  if (first.cut || first.visible === 0) return first.out;
  return textPrefix(html, Math.floor(first.visible / 2), false).out;
}

/** Whether an HTML document has content a reader sees: text that is not white space, or embedded content. */
export function htmlHasText(html: string): boolean {
  let seen = false;
  let unseenDepth = 0;
  const found = () => {
    seen = true;
    parser.pause();
  };
  const parser: Parser = new Parser(
    {
      onopentag(name) {
        if (unseenDepth > 0 || UNSEEN.has(name)) unseenDepth++;
        else if (EMBEDDED.has(name)) found();
      },
      ontext(text) {
        if (unseenDepth === 0 && text.trim() !== '') found();
      },
      onclosetag() {
        if (unseenDepth > 0) unseenDepth--;
      },
    },
    PARSE_OPTIONS,
  );
  parser.write(html);
  if (!seen) parser.end();
  return seen;
}

interface Prefix {
  out: string;
  /** Characters of text within `maxChars` that are not white space. */
  visible: number;
  /** Whether text other than white space was left out. */
  cut: boolean;
}

/**
 * The first `maxChars` characters of text as HTML, counting every character, or with `countBlank`
 * false only those that are not white space. Counting every character, the mark of a cut is one
 * of them, so the text shown is never longer than `maxChars`; `cut` still says whether text other
 * than white space lies past the first `maxChars` characters, which decides the first-half rule.
 */
function textPrefix(html: string, maxChars: number, countBlank: boolean): Prefix {
  const reserve = countBlank && maxChars > 0 ? 1 : 0;
  const budget = maxChars - reserve;
  const mark = countBlank && maxChars === 0 ? '' : '…';
  let out = '';
  let used = 0;
  let visible = 0;
  let done = false;
  let cut = false;
  let dropDepth = 0;
  /** Characters of kept text attributes the preview may still show (TEXT_ATTRIBUTES). */
  let attributeText = maxChars;
  const withinAttributeText = (name: string, value: string): boolean => {
    if (!TEXT_ATTRIBUTES.has(name)) return true;
    const n = Array.from(value).length;
    if (n > attributeText) return false;
    attributeText -= n;
    return true;
  };
  const open: string[] = [];
  const parser = new Parser(
    {
      // Dropped elements are followed past the cut too: a script there is not text left out.
      onopentag(name, attribs) {
        if (dropDepth > 0 || DROP.has(name)) {
          if (!VOID.has(name)) dropDepth++;
          return;
        }
        if (done || UNWRAP.has(name)) return;
        const attrs = Object.entries(attribs)
          .filter(([k, v]) => keepsAttribute(name, k, v) && withinAttributeText(k, v))
          .map(([k, v]) => ` ${k}="${escapeAttr(v)}"`)
          .join('');
        out += `<${name}${attrs}>`;
        if (!VOID.has(name)) open.push(name);
      },
      ontext(text) {
        if (dropDepth > 0) return;
        if (done) {
          cut ||= text.trim() !== '';
          return;
        }
        const chars = Array.from(text);
        const seen = countVisible(chars);
        const n = countBlank ? chars.length : seen;
        if (used + n <= budget) {
          out += escapeText(text);
          used += n;
          visible += seen;
          return;
        }
        const keep = countBlank ? budget - used : pastVisible(chars, budget - used);
        out += escapeText(chars.slice(0, keep).join('')).trimEnd() + mark;
        // The first character past the cut is the one the mark stands for.
        visible += countVisible(chars.slice(0, keep + reserve));
        cut = countVisible(chars.slice(keep + reserve)) > 0;
        used = budget;
        done = true;
      },
      onclosetag(name) {
        if (dropDepth > 0) {
          if (!VOID.has(name)) dropDepth--;
          return;
        }
        if (done || VOID.has(name)) return;
        const at = open.lastIndexOf(name);
        if (at === -1) return;
        while (open.length > at) out += `</${open.pop()}>`;
      },
    },
    PARSE_OPTIONS,
  );
  parser.write(html);
  parser.end();
  while (open.length > 0) out += `</${open.pop()}>`;
  return { out, visible, cut };
}
