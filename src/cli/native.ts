// The native executable's main script (Node's single-executable application, built by scripts/build-native.mjs).
//
// A SEA runs one CommonJS script whose `require` knows only Node's built-ins. agentd's bundles, the packages
// they require at run time (pino, ajv, web-tree-sitter, picomatch), the tree-sitter WASM files and the ripgrep
// binary agentd ships (made executable) travel as
// SEA assets and are extracted once per build into a private cache directory, laid out like the npm install
// (<dir>/agentd.js, <dir>/node_modules/…). From there the same launcher as bin/agentd's runs them: the same
// bundles, the same lazy loading, the same V8 code caches (embedded warm, rewritten there if ever stale), the
// same run-time V8 tuning. Extracting costs ~10 ms once per build; a later start checks that the files are
// there (one stat each).
// Not the same: glibc.malloc.arena_max=1, which bin/agentd's shell lines set before Node starts. glibc reads it
// only at process start, and re-executing itself with it (process.execve, Node ≥ 22.15) measured +20 ms of CPU
// per start, half the start-up budget; a host that wants it sets GLIBC_TUNABLES itself (README).
import { chmodSync, existsSync, lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { getRawAsset } from 'node:sea';
import { launch } from './launch.js';

/** Set by scripts/build-native.mjs: a hash of every asset and the Node version, and the asset keys. */
declare const AGENTD_NATIVE_BUILD: string;
declare const AGENTD_NATIVE_FILES: readonly string[];
/** The asset keys extracted with the executable bit (ripgrep). */
declare const AGENTD_NATIVE_EXECUTABLES: readonly string[];

/** Written last into a finished extraction (which is then renamed into place as a whole). */
const MARKER = '.agentd-native';

function fail(message: string): never {
  process.stderr.write(`agentd: ${message}\n`);
  process.exit(70);
}

/** Where extracted builds live, most preferred first. */
function cacheRoots(env: NodeJS.ProcessEnv): string[] {
  const roots: string[] = [];
  if (env['AGENTD_NATIVE_CACHE']) roots.push(env['AGENTD_NATIVE_CACHE']);
  // XDG: an explicit XDG_CACHE_HOME must be absolute, else it is ignored.
  const xdg = env['XDG_CACHE_HOME'];
  if (xdg?.startsWith('/')) roots.push(join(xdg, 'agentd'));
  let home = env['HOME'];
  if (!home) {
    try {
      home = homedir();
    } catch {
      home = undefined;
    }
  }
  if (home) roots.push(join(home, '.cache', 'agentd'));
  // Last resort (a read-only home): a directory of our own in the temp dir, checked to be ours and private
  // before anything there is trusted, since others can write to the temp dir.
  const uid = process.getuid?.() ?? 0;
  roots.push(join(tmpdir(), `agentd-native-${uid}`));
  return roots;
}

/** A usable root: created if missing; a shared temp location must be a real directory owned by us, mode 0700. */
function prepareRoot(root: string): boolean {
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    if (root.startsWith(join(tmpdir(), 'agentd-native-'))) {
      const st = lstatSync(root);
      if (!st.isDirectory() || st.uid !== process.getuid?.() || (st.mode & 0o077) !== 0) return false;
    }
    return true;
  } catch {
    return false;
  }
}

function extractInto(dir: string): void {
  for (const key of AGENTD_NATIVE_FILES) {
    const file = join(dir, key);
    mkdirSync(dirname(file), { recursive: true });
    const bytes = getRawAsset(key); // a view of the executable's mapped memory, not a copy
    writeFileSync(file, typeof bytes === 'string' ? bytes : new Uint8Array(bytes), { mode: AGENTD_NATIVE_EXECUTABLES.includes(key) ? 0o755 : 0o644 });
  }
  writeFileSync(join(dir, MARKER), `${AGENTD_NATIVE_BUILD}\n`);
}

/**
 * Whether `dir` holds all of this build's files. Every one is checked (a few µs each), not just the marker: a
 * cleaner of old files (systemd-tmpfiles in the temp dir, a user tidying ~/.cache) must not leave a directory
 * that starts but fails when the tools bundle loads later.
 */
function complete(dir: string): boolean {
  return existsSync(join(dir, MARKER)) && AGENTD_NATIVE_FILES.every((k) => existsSync(join(dir, k)));
}

/** The directory holding this build's files, extracting them on the first run of the build. */
function extracted(env: NodeJS.ProcessEnv): string {
  const errors: string[] = [];
  for (const root of cacheRoots(env)) {
    const dir = join(root, AGENTD_NATIVE_BUILD);
    if (complete(dir)) return dir;
    if (!prepareRoot(root)) {
      errors.push(`${root}: not usable`);
      continue;
    }
    // Checked again: a racing first start may have renamed its finished copy in since the check above.
    if (existsSync(dir) && !complete(dir)) {
      // Incomplete: moved aside (atomically, so a racing start sees either it or nothing) and replaced.
      const aside = join(root, `.${AGENTD_NATIVE_BUILD}.${process.pid}.${Math.random().toString(36).slice(2)}.old`);
      try {
        renameSync(dir, aside);
        rmSync(aside, { recursive: true, force: true });
      } catch {
        // another start moved it first
      }
    }
    // Extract beside the final place and rename it in as a whole: a concurrent first start either wins the
    // rename or finds the other's finished copy; nobody ever sees a half-written directory.
    const tmp = join(root, `.${AGENTD_NATIVE_BUILD}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
    try {
      mkdirSync(tmp, { mode: 0o700 });
      extractInto(tmp);
      chmodSync(tmp, 0o755);
      try {
        renameSync(tmp, dir);
      } catch (e) {
        rmSync(tmp, { recursive: true, force: true });
        if (!complete(dir)) throw e;
      }
      return dir;
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      errors.push(`${root}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return fail(`cannot extract the native build's files (set AGENTD_NATIVE_CACHE to a writable directory): ${errors.join('; ')}`);
}

launch(join(extracted(process.env), 'agentd.js'));
