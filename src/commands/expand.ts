// A custom command's (or a skill's) expansion into the user message the model receives, in Claude Code's layout:
// the `@file` contents as reminders, the `<command-message>`/`<command-name>`/`<command-args>` markers, then the
// body with `$ARGUMENTS` and `$0…$N` (0-based, as Claude Code 2.1.330 counts) filled in and each `!`cmd``
// replaced by its output. Shell lines run through the permission engine (runShell); one refused fails the command.
// An `@file` is read only when a Read call of it would be, with nobody asked (readAccess: the engine's decision).
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { UserBlock } from '../model/types.js';
import { readText } from '../project/files.js';

export type ShellRun = (command: string, signal: AbortSignal) => Promise<{ ok: true; output: string } | { ok: false; message: string }>;

export interface ExpandInput {
  name: string;
  args: string;
  body: string;
  /** For skills: "Base directory for this skill: …" leads the body. */
  baseDir?: string;
  cwd: string;
  /** What a Read call of a path would get with nobody asked (deny rules, the working directories): `@file` obeys it. */
  readAccess: (path: string) => Promise<'allow' | 'ask' | 'deny'>;
  runShell: ShellRun;
  signal: AbortSignal;
}

const MAX_FILE_CHARS = 100_000;

export async function expandCommand(x: ExpandInput): Promise<{ ok: true; content: UserBlock[] } | { ok: false; message: string }> {
  let body = substituteArguments(x.body, x.args);
  const shell = await runShellLines(body, x);
  if (!shell.ok) return shell;
  body = shell.text;
  const blocks: UserBlock[] = [];
  for (const ref of fileRefs(body)) {
    const text = await readRef(ref, x);
    if (text !== undefined) blocks.push({ type: 'text', text });
  }
  blocks.push({ type: 'text', text: markers(x.name, x.args) });
  blocks.push({ type: 'text', text: x.baseDir !== undefined ? `Base directory for this skill: ${x.baseDir}\n\n${body}` : body });
  return { ok: true, content: blocks };
}

export function markers(name: string, args: string): string {
  return `<command-message>${name}</command-message>\n<command-name>/${name}</command-name>\n${args ? `<command-args>${args}</command-args>\n` : ''}`;
}

/** `$ARGUMENTS` is the whole argument text; `$0`, `$1`… its words (0-based); with neither, the arguments follow. */
export function substituteArguments(body: string, args: string): string {
  const words = splitArgs(args);
  let used = false;
  let out = body.replace(/\$ARGUMENTS\b/g, () => {
    used = true;
    return args;
  });
  out = out.replace(/\$(\d+)\b/g, (m, n: string) => {
    const w = words[Number(n)];
    if (w === undefined) return m;
    used = true;
    return w;
  });
  if (!used && args.trim() !== '') out = `${out.replace(/\s+$/, '')}\n\nARGUMENTS: ${args}\n`;
  return out;
}

function splitArgs(args: string): string[] {
  const out: string[] = [];
  for (const m of args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3] ?? '');
  return out;
}

const SHELL_RE = /!`([^`\n]+)`/g;

async function runShellLines(body: string, x: ExpandInput): Promise<{ ok: true; text: string } | { ok: false; message: string }> {
  const commands = [...body.matchAll(SHELL_RE)];
  if (commands.length === 0) return { ok: true, text: body };
  const outputs: string[] = [];
  for (const m of commands) {
    const cmd = (m[1] as string).trim();
    const r = await x.runShell(cmd, x.signal);
    if (!r.ok) return { ok: false, message: `/${x.name}: the shell command \`${cmd}\` did not run: ${r.message}` };
    outputs.push(r.output.replace(/\s+$/, ''));
  }
  let i = 0;
  return { ok: true, text: body.replace(SHELL_RE, () => outputs[i++] ?? '') };
}

function fileRefs(body: string): string[] {
  const out = new Set<string>();
  for (const m of body.matchAll(/(?:^|\s)@([^\s`'"]+)/g)) {
    const ref = (m[1] as string).replace(/[.,;:)]+$/, '');
    if (ref) out.add(ref);
  }
  return [...out];
}

async function readRef(ref: string, x: ExpandInput): Promise<string | undefined> {
  const path = isAbsolute(ref) ? ref : resolve(x.cwd, ref);
  let real: string;
  try {
    real = realpathSync(path);
    if (!statSync(real).isFile()) return undefined;
  } catch {
    return undefined;
  }
  // A command file cannot pull in ~/.ssh, or a file a Read deny rule covers, by naming it.
  if ((await x.readAccess(path)) !== 'allow') return undefined;
  const text = readText(real);
  if (text === undefined || text.includes('\u0000')) return undefined;
  const capped = text.length > MAX_FILE_CHARS ? `${text.slice(0, MAX_FILE_CHARS)}\n[truncated: the file is longer]` : text;
  const numbered = capped
    .split('\n')
    .map((l, i) => `${i + 1}\t${l}`)
    .join('\n');
  return `<system-reminder>\nContents of ${real}:\n${numbered}\n</system-reminder>\n`;
}
