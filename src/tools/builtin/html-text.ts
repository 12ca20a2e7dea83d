// HTML → readable text, cheaply (no DOM, no dependency): drop scripts/styles/comments, turn block elements into
// line breaks, headings/list items/links into light markdown, decode entities, collapse whitespace. Good enough
// for a model to read a page; not a faithful renderer.

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  copy: '©',
  reg: '®',
  trade: '™',
  middot: '·',
  bull: '•',
  times: '×',
  deg: '°',
  euro: '€',
  pound: '£',
  yen: '¥',
  sect: '§',
  para: '¶',
  shy: '',
  zwj: '',
  zwnj: '',
};

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z][a-z0-9]*);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}

const BLOCK = /^(?:p|div|section|article|main|header|footer|nav|aside|blockquote|pre|table|thead|tbody|tfoot|tr|ul|ol|dl|dt|dd|form|fieldset|figure|figcaption|details|summary|address|hr)$/i;

/** The text of an HTML page; `title` is the <title>, if any. */
export function htmlToText(html: string): { title: string | undefined; text: string } {
  const titleMatch = /<title[^<>]*>([\s\S]*?)<\/title>/i.exec(html);
  const title = titleMatch ? decodeEntities(titleMatch[1] ?? '').replace(/\s+/g, ' ').trim() || undefined : undefined;
  // Linear scans, not lazy regexes: an unclosed <script> repeated many times must not go quadratic.
  let s = cutBetween(html, /<!--/g, () => /-->/g);
  s = cutBetween(s, /<(script|style|noscript|template|svg|head|iframe|object|canvas)\b/gi, (tag) => new RegExp(`</${tag}\\s*>`, 'gi'));
  // Preformatted blocks keep their whitespace: stash them before whitespace is collapsed.
  const pres: string[] = [];
  s = cutBetween(s, /<pre\b[^<>]*>/gi, () => /<\/pre\s*>/gi, (body) => {
    pres.push(decodeEntities(body.replace(/<[^<>]+>/g, '')));
    return `\n\u0000PRE${pres.length - 1}\u0000\n`;
  });
  s = s
    .replace(/<a\b[^<>]*?\bhref\s*=\s*(?:"([^"<>]*)"|'([^'<>]*)'|([^\s>]+))[^<>]*>([\s\S]{0,2000}?)<\/a\s*>/gi, (_, d: string | undefined, q: string | undefined, b: string | undefined, inner: string) => {
      const href = d ?? q ?? b ?? '';
      const label = inner.replace(/<[^<>]+>/g, '').trim();
      if (!label) return '';
      if (!href || href.startsWith('#') || href.startsWith('javascript:')) return label;
      return `[${label}](${href})`;
    })
    .replace(/<h([1-6])\b[^<>]*>/gi, (_, n: string) => `\n\n${'#'.repeat(Number(n))} `)
    .replace(/<\/h[1-6]\s*>/gi, '\n\n')
    .replace(/<li\b[^<>]*>/gi, '\n- ')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/?(td|th)\b[^<>]*>/gi, ' ')
    .replace(/<\/?([a-z][a-z0-9]*)\b[^<>]*>/gi, (_, tag: string) => (BLOCK.test(tag) ? '\n' : ''))
    .replace(/<[^<>]*>/g, '');
  s = decodeEntities(s)
    .replace(/[ \t\f\v\r\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  s = s.replace(/\u0000PRE(\d+)\u0000/g, (_, i: string) => pres[Number(i)] ?? '');
  return { title, text: s };
}

/**
 * Removes every region from a match of `open` to the next match of `close(openGroup1)` (or to the end when it
 * is never closed), optionally replacing it with `keep(innerText)`. One pass over the input.
 */
function cutBetween(s: string, open: RegExp, close: (tag: string) => RegExp, keep?: (inner: string) => string): string {
  let out = '';
  let pos = 0;
  open.lastIndex = 0;
  for (let m = open.exec(s); m !== null; m = open.exec(s)) {
    out += s.slice(pos, m.index);
    const c = close((m[1] ?? '').toLowerCase());
    c.lastIndex = open.lastIndex;
    const end = c.exec(s);
    const innerEnd = end ? end.index : s.length;
    if (keep) out += keep(s.slice(open.lastIndex, innerEnd));
    pos = end ? c.lastIndex : s.length;
    open.lastIndex = pos;
    if (!end) break;
  }
  return out + s.slice(pos);
}
