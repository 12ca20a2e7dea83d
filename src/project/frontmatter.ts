// The frontmatter of project markdown files (commands, skills, agents, output styles): a `---` fenced block of flat YAML keys.
// Claude Code's files use a small subset of YAML: `key: value` scalars (plain, quoted), inline lists `[a, b]`,
// block lists (`- a`) and block scalars (`|`, `>`). That subset is parsed here; anything else (nested maps, anchors,
// tags) is an error the caller reports and skips the file for. A full YAML library would add ~100 KB to the
// start-up bundle for keys that are all flat.

export type FrontmatterValue = string | number | boolean | null | readonly string[];

export type Frontmatter =
  | { ok: true; data: Readonly<Record<string, FrontmatterValue>>; body: string; hasFrontmatter: boolean }
  | { ok: false; error: string };

const FENCE = /^---[ \t]*\r?\n/;

export function parseFrontmatter(text: string): Frontmatter {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!FENCE.test(src)) return { ok: true, data: {}, body: src, hasFrontmatter: false };
  const start = src.indexOf('\n') + 1;
  const close = /^---[ \t]*$/m;
  const rest = src.slice(start);
  const m = close.exec(rest);
  if (!m) return { ok: false, error: 'frontmatter is not closed by a --- line' };
  const block = rest.slice(0, m.index);
  let bodyStart = m.index + m[0].length;
  if (rest[bodyStart] === '\r') bodyStart++;
  if (rest[bodyStart] === '\n') bodyStart++;
  const parsed = parseBlock(block);
  if (typeof parsed === 'string') return { ok: false, error: parsed };
  return { ok: true, data: parsed, body: rest.slice(bodyStart), hasFrontmatter: true };
}

const KEY = /^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$/;

function parseBlock(block: string): Record<string, FrontmatterValue> | string {
  const lines = block.split(/\r?\n/);
  const data: Record<string, FrontmatterValue> = {};
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    i++;
    if (/^\s*(#.*)?$/.test(line)) continue;
    if (/^\s/.test(line)) return `line ${i}: unexpected indentation`;
    const km = KEY.exec(line.trimEnd());
    if (!km) return `line ${i}: expected "key: value"`;
    const key = km[1] as string;
    const raw = stripComment((km[2] ?? '').trim());
    if (raw === '' || raw === '|' || raw === '>' || raw === '|-' || raw === '>-') {
      // A block list, a block scalar, or an empty value.
      const items: string[] = [];
      const texts: string[] = [];
      while (i < lines.length && (/^\s+\S/.test(lines[i] as string) || (raw !== '' && /^\s*$/.test(lines[i] as string)))) {
        const l = lines[i] as string;
        i++;
        if (raw === '') {
          const item = /^\s+-[ \t]+(.*)$|^\s+-$/.exec(l);
          if (!item) return `line ${i}: nested maps are not supported in frontmatter`;
          const v = scalar(stripComment((item[1] ?? '').trim()));
          if (typeof v === 'object' && v !== null) return `line ${i}: nested lists are not supported`;
          items.push(v === null ? '' : String(v));
        } else texts.push(l.trim());
      }
      if (raw === '') data[key] = items.length > 0 ? items : null;
      else data[key] = raw.startsWith('|') ? texts.join('\n').trim() : texts.filter(Boolean).join(' ').trim();
      continue;
    }
    const v = scalar(raw);
    if (v instanceof Error) return `line ${i}: ${v.message}`;
    data[key] = v;
  }
  return data;
}

function stripComment(s: string): string {
  if (s.startsWith('"') || s.startsWith("'")) return s;
  const h = s.search(/\s#/);
  return h >= 0 ? s.slice(0, h).trimEnd() : s;
}

function scalar(raw: string): FrontmatterValue | Error {
  if (raw.startsWith('"')) {
    if (!raw.endsWith('"') || raw.length < 2) return new Error('unterminated double-quoted string');
    try {
      const parsed: unknown = JSON.parse(raw);
      return typeof parsed === 'string' ? parsed : new Error('invalid double-quoted string');
    } catch {
      return new Error('invalid double-quoted string');
    }
  }
  if (raw.startsWith("'")) {
    if (!raw.endsWith("'") || raw.length < 2) return new Error('unterminated single-quoted string');
    return raw.slice(1, -1).replace(/''/g, "'");
  }
  if (raw.startsWith('[')) {
    if (!raw.endsWith(']')) return new Error('unterminated inline list');
    const inner = raw.slice(1, -1).trim();
    if (inner === '') return [];
    const out: string[] = [];
    for (const part of splitInline(inner)) {
      const v = scalar(part.trim());
      if (v instanceof Error) return v;
      if (typeof v === 'object' && v !== null) return new Error('nested lists are not supported');
      out.push(v === null ? '' : String(v));
    }
    return out;
  }
  if (raw.startsWith('{')) return new Error('inline maps are not supported in frontmatter');
  if (/^[&*!]/.test(raw)) return new Error('YAML anchors, aliases and tags are not supported in frontmatter');
  if (raw === 'true' || raw === 'True' || raw === 'TRUE') return true;
  if (raw === 'false' || raw === 'False' || raw === 'FALSE') return false;
  if (raw === 'null' || raw === '~') return null;
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  return raw;
}

/** Splits `a, "b, c", d` at the commas outside quotes. */
function splitInline(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | undefined;
  for (const ch of s) {
    if (quote) {
      cur += ch;
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      cur += ch;
    } else if (ch === ',') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

/** A value as a string list: `a, b` strings split at commas (Claude Code accepts both forms for tool lists). */
export function stringList(v: FrontmatterValue | undefined): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return (v as unknown[]).filter((s): s is string => typeof s === 'string').map((s) => s.trim()).filter(Boolean);
  return splitInline(String(v))
    .map((s) => s.trim())
    .filter(Boolean);
}

export function stringValue(v: FrontmatterValue | undefined): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return v.join(', ');
  return String(v);
}
