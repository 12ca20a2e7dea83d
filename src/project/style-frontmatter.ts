// The frontmatter of an output-style file: a `---` block of `key: value` lines. Output styles only use flat
// string keys (name, description, keep-coding-instructions), so a line parser is enough and no YAML
// dependency is added here (the commands/skills loaders have their own needs).

export type Frontmatter = { kind: 'ok'; fields: Record<string, string>; body: string } | { kind: 'invalid'; reason: string };

function unquote(v: string): string {
  const t = v.trim();
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) return t.slice(1, -1);
  return t;
}

export function splitFrontmatter(text: string): Frontmatter {
  const src = text.startsWith('\ufeff') ? text.slice(1) : text;
  if (!/^---\r?\n/.test(src)) return { kind: 'ok', fields: {}, body: src };
  const lines = src.split(/\r?\n/);
  const end = lines.indexOf('---', 1);
  if (end < 0) return { kind: 'invalid', reason: 'frontmatter opened with --- is never closed' };
  const fields: Record<string, string> = {};
  for (const line of lines.slice(1, end)) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const m = /^([A-Za-z0-9_-]+)\s*:(.*)$/.exec(line);
    if (!m) return { kind: 'invalid', reason: `frontmatter line ${JSON.stringify(line)} is not "key: value"` };
    fields[m[1] as string] = unquote(m[2] as string);
  }
  return { kind: 'ok', fields, body: lines.slice(end + 1).join('\n') };
}
