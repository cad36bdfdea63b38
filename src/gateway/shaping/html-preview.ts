import { Parser } from 'htmlparser2';

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
/** Elements whose content is never part of a preview. */
const DROP = new Set(['script', 'style', 'iframe', 'object', 'noscript', 'template']);

const PARSE_OPTIONS = {
  decodeEntities: true,
  lowerCaseTags: true,
  lowerCaseAttributeNames: true,
  recognizeSelfClosing: true,
};

const escapeText = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string): string => escapeText(s).replace(/"/g, '&quot;');

/**
 * A preview of an HTML document, as HTML: at most `maxChars` characters of its text, and never the
 * whole of it, since a preview stands for a field the plan does not get (a document whose text
 * fits in `maxChars` shows its first half). Tags balanced, entities re-escaped, never a split UTF-16
 * surrogate pair, script/style and event-handler attributes dropped.
 */
export function htmlPreview(html: string, maxChars: number): string {
  const first = textPrefix(html, maxChars);
  if (first.cut || first.chars === 0) return first.out;
  return textPrefix(html, Math.floor(first.chars / 2)).out;
}

/** Whether an HTML document has any text a reader sees (not only tags, blanks, scripts or styles). */
export function htmlHasText(html: string): boolean {
  let seen = false;
  let dropDepth = 0;
  const parser: Parser = new Parser(
    {
      onopentag(name) {
        if ((dropDepth > 0 || DROP.has(name)) && !VOID.has(name)) dropDepth++;
      },
      ontext(text) {
        if (dropDepth > 0 || text.trim() === '') return;
        seen = true;
        parser.pause();
      },
      onclosetag(name) {
        if (dropDepth > 0 && !VOID.has(name)) dropDepth--;
      },
    },
    PARSE_OPTIONS,
  );
  parser.write(html);
  if (!seen) parser.end();
  return seen;
}

/** The first `maxChars` characters of text as HTML; `cut` when there was more text than that. */
function textPrefix(html: string, maxChars: number): { out: string; chars: number; cut: boolean } {
  let out = '';
  let used = 0;
  let done = false;
  let dropDepth = 0;
  const open: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (done) return;
        if (dropDepth > 0 || DROP.has(name)) {
          if (!VOID.has(name)) dropDepth++;
          return;
        }
        const attrs = Object.entries(attribs)
          .filter(([k, v]) => !k.startsWith('on') && !/^\s*javascript:/i.test(v))
          .map(([k, v]) => ` ${k}="${escapeAttr(v)}"`)
          .join('');
        out += `<${name}${attrs}>`;
        if (!VOID.has(name)) open.push(name);
      },
      ontext(text) {
        if (done || dropDepth > 0) return;
        const chars = Array.from(text);
        if (used + chars.length <= maxChars) {
          out += escapeText(text);
          used += chars.length;
          return;
        }
        out += escapeText(chars.slice(0, maxChars - used).join('')).trimEnd() + '…';
        used = maxChars;
        done = true;
      },
      onclosetag(name) {
        if (done) return;
        if (dropDepth > 0) {
          if (!VOID.has(name)) dropDepth--;
          return;
        }
        if (VOID.has(name)) return;
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
  return { out, chars: used, cut: done };
}
