// `@path` imports in a memory file, as Claude Code 2.1.330 reads them (measured, see README "Memory files"): an
// `@` at the start of a line or after whitespace, followed by a path (relative to the importing file, `~/…`, or
// absolute); backslash-escaped spaces allowed. Text in fenced code blocks and in inline code spans is not
// scanned, so a file that shows an `@path` example does not import it.

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const IMPORT = /(?:^|\s)@((?:[^\s\\]|\\ )+)/g;
// A path ending a sentence: "see @notes.md." imports notes.md.
const TRAILING = /[.,;:!?)\]}>'"]+$/;

/** Removes inline code spans (backtick runs of equal length) from one line. */
function withoutCodeSpans(line: string): string {
  if (!line.includes('`')) return line;
  let out = '';
  let i = 0;
  while (i < line.length) {
    if (line[i] !== '`') {
      out += line[i];
      i++;
      continue;
    }
    let n = 0;
    while (line[i + n] === '`') n++;
    const fence = '`'.repeat(n);
    const end = line.indexOf(fence, i + n);
    if (end < 0) {
      out += line.slice(i);
      break;
    }
    out += ' ';
    i = end + n;
  }
  return out;
}

/** The import targets a memory file names, in order, as written (not yet resolved). */
export function importTargets(text: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const f = FENCE.exec(line);
    if (f) {
      const marker = f[1] as string;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined || !line.includes('@')) continue;
    for (const m of withoutCodeSpans(line).matchAll(IMPORT)) {
      const raw = (m[1] as string).replace(/\\ /g, ' ').replace(TRAILING, '');
      if (raw && raw !== '~' && !raw.startsWith('@')) out.push(raw);
    }
  }
  return out;
}
