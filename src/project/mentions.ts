// `@file` mentions in a user's prompt: Claude Code reads each mentioned file and puts it before the prompt as
// if the Read tool had been called (measured: "Called the Read tool with the following input: …" then "Result
// of calling the Read tool: <numbered lines>"). agentd does the same, in its own words, for regular files
// inside the working directories, up to a size cap; a frame with `client_composed: true` is delivered as
// written (sdk.d.ts: the client assembled the text, not the user).
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';

const MENTION = /(?:^|\s)@("[^"]+"|(?:[^\s\\]|\\ )+)/g;
const TRAILING = /[.,;:!?)\]}>'"]+$/;
/** A mentioned file over this is not attached (the model can still Read it). */
export const MAX_MENTION_BYTES = 256 * 1024;

function inside(path: string, roots: readonly string[]): boolean {
  return roots.some((r) => path === r || path.startsWith(r.endsWith(sep) ? r : r + sep));
}

function numbered(text: string): string {
  return text
    .split('\n')
    .map((l, i) => `${i + 1}\t${l}`)
    .join('\n');
}

/**
 * The reminders for the files a prompt mentions, in order (none: the prompt mentions no readable file).
 * Synchronous and bounded: it runs as the user message is queued, so that queued messages keep their order.
 */
export function mentionReminders(prompt: string, o: { cwd: string; homeDir: string; roots: readonly string[] }): string[] {
  if (!prompt.includes('@')) return [];
  const out: string[] = [];
  const seen = new Set<string>();
  const roots = o.roots.map((r) => {
    try {
      return realpathSync(r);
    } catch {
      return r;
    }
  });
  for (const m of prompt.matchAll(MENTION)) {
    let raw = m[1] as string;
    raw = raw.startsWith('"') ? raw.slice(1, -1) : raw.replace(/\\ /g, ' ').replace(TRAILING, '');
    if (!raw || raw.includes(':')) continue; // `@server:resource` is an MCP mention, not a file
    const abs = raw.startsWith('~/') ? join(o.homeDir, raw.slice(2)) : isAbsolute(raw) ? raw : resolve(o.cwd, raw);
    let real: string;
    try {
      real = realpathSync(abs);
      const st = statSync(real);
      if (!st.isFile() || st.size > MAX_MENTION_BYTES) continue;
    } catch {
      continue;
    }
    if (seen.has(real) || !inside(real, roots)) continue;
    seen.add(real);
    let text: string;
    try {
      const buf = readFileSync(real);
      if (buf.includes(0)) continue;
      text = buf.toString('utf8');
    } catch {
      continue;
    }
    out.push(`<system-reminder>\nThe user mentioned ${abs}; agentd read it for you (as a Read call with {"file_path":${JSON.stringify(abs)}}):\n${numbered(text)}\n</system-reminder>`);
  }
  return out;
}
