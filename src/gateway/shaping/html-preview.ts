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

const escapeText = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string): string => escapeText(s).replace(/"/g, '&quot;');

/**
 * The first `maxChars` characters of text of an HTML document, as HTML: tags balanced, entities
 * re-escaped, never a split UTF-16 surrogate pair, script/style and event-handler attributes dropped.
 */
export function htmlPreview(html: string, maxChars: number): string {
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
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  while (open.length > 0) out += `</${open.pop()}>`;
  return out;
}
