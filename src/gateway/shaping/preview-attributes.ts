/**
 * The attributes a preview keeps: layout and plain links, by allowlist. A preview is HTML that
 * clients show, so nothing in it may run, submit, load, restyle the page around it (style, or a
 * class the page's own CSS gives meaning) or name a DOM global (id, name): what is not listed here
 * is dropped, not what is listed as dangerous.
 */
const KEPT = new Set([
  'title',
  'alt',
  'lang',
  'dir',
  'colspan',
  'rowspan',
  'span',
  'headers',
  'scope',
  'abbr',
  'align',
  'valign',
  'width',
  'height',
  'border',
  'cellpadding',
  'cellspacing',
  'start',
  'reversed',
  'type',
  'datetime',
]);

/**
 * Kept attributes whose values are text a reader sees (a tooltip, a replacement text): a preview
 * shows no more of it in all than its own length in characters, or a document could pass its text
 * to the plan without it through them.
 */
export const TEXT_ATTRIBUTES = new Set(['title', 'alt', 'abbr']);

/** Links, on the elements that link: `<base href>` would move every relative link of the page. */
const URL_ATTRIBUTES = new Map([
  ['href', new Set(['a'])],
  ['cite', new Set(['blockquote', 'q', 'del', 'ins'])],
]);
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto', 'tel']);
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/**
 * Whether a URL, read the way browsers read it, is relative or uses a safe scheme. Browsers drop
 * tabs and line breaks anywhere in a URL and controls and spaces around it, so
 * "java&#9;script:" and "\u0001javascript:" are javascript: URLs too.
 */
export function isSafeUrl(value: string): boolean {
  // eslint-disable-next-line no-control-regex
  const url = value.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, '');
  const scheme = SCHEME.exec(url);
  return scheme === null || SAFE_SCHEMES.has(scheme[1]!.toLowerCase());
}

/** Whether the preview keeps this attribute of this element (names lower-cased, value with entities decoded). */
export function keepsAttribute(element: string, name: string, value: string): boolean {
  if (KEPT.has(name)) return true;
  return URL_ATTRIBUTES.get(name)?.has(element) === true && isSafeUrl(value);
}
