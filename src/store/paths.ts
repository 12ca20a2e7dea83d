// Where Claude Code keeps transcripts, computed exactly as the CLI and the Agent SDK do (sdk.mjs 0.3.330:
// `Vt`, `SI`, `Ta`, `fR`, `mA`), so the SDK's listSessions/getSessionMessages find agentd's files unchanged.
import { realpathSync } from 'node:fs';
import { homedir, platform as osPlatform } from 'node:os';
import { join, resolve } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/** Project directory names longer than this are cut and suffixed with a hash of the full path. */
export const MAX_PROJECT_DIR_NAME = 200;

/** `$CLAUDE_CONFIG_DIR` or `~/.claude`, NFC-normalised (macOS file names may come back decomposed). */
export function claudeConfigRoot(env: Env, home: string = homedir()): string {
  const dir = env['CLAUDE_CONFIG_DIR'];
  return (dir !== undefined && dir !== '' ? dir : join(home, '.claude')).normalize('NFC');
}

/** The 32-bit string hash Claude Code uses (Java's String.hashCode over UTF-16 code units). */
export function stringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = ((h << 5) - h + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * The transcript directory name for a project path: every char outside [A-Za-z0-9] becomes `-`; a name over
 * 200 chars is cut to 200 and suffixed with `-` + base36(|hash|) of the *unsanitised* path (what the SDK hashes).
 */
export function sanitizeProjectPath(projectPath: string): string {
  const name = projectPath.replace(/[^a-zA-Z0-9]/g, '-');
  if (name.length <= MAX_PROJECT_DIR_NAME) return name;
  return `${name.slice(0, MAX_PROJECT_DIR_NAME)}-${Math.abs(stringHash(projectPath)).toString(36)}`;
}

const OVERRIDE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const RESERVED_NAME = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/** `CLAUDE_CODE_PROJECT_DIR_NAME` replaces the computed name, but only together with `CLAUDE_CONFIG_DIR`. */
function overrideName(env: Env): string | undefined {
  if (!env['CLAUDE_CONFIG_DIR']) return undefined;
  const n = env['CLAUDE_CODE_PROJECT_DIR_NAME'];
  if (!n || !OVERRIDE_NAME.test(n) || RESERVED_NAME.test(n)) return undefined;
  return n;
}

/** The path sessions are keyed by: the realpath of cwd (the SDK realpaths `dir` before hashing). */
export function canonicalProjectPath(cwd: string): string {
  const abs = resolve(cwd);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    real = abs;
  }
  return osPlatform() === 'darwin' ? real.normalize('NFC') : real;
}

export function projectDirName(projectPath: string, env: Env = {}): string {
  return overrideName(env) ?? sanitizeProjectPath(projectPath);
}

/** `<root>/projects/<project-dir>` for a cwd. */
export function projectDir(root: string, cwd: string, env: Env = {}): string {
  return join(root, 'projects', projectDirName(canonicalProjectPath(cwd), env));
}

export function transcriptPath(root: string, cwd: string, sessionId: string, env: Env = {}): string {
  return join(projectDir(root, cwd, env), `${sessionId}.jsonl`);
}

/**
 * What goes in every entry's `entrypoint`: `CLAUDE_CODE_ENTRYPOINT` as the SDKs set it (`sdk-ts`, `sdk-py`),
 * else `sdk-cli`, which is what Claude Code itself sets when it runs non-interactively (agentd always does).
 * It decides whether IDE pickers (`listSessions({includeProgrammatic:false})`) show the session.
 */
export function entrypointFrom(env: Env): string {
  const e = env['CLAUDE_CODE_ENTRYPOINT'];
  return e !== undefined && e !== '' ? e : 'sdk-cli';
}
