// The daemon's loader. Runs agentd's CommonJS bundles through vm.Script with a V8 code cache stored beside each
// (<bundle>.cache): V8 then skips parsing and compiling what it compiled last time (Node 20 has no module compile
// cache of its own). A missing, stale (different source or V8) or corrupt cache is rejected by V8 and simply
// rebuilt: the bundle is compiled as usual and a fresh cache is written when the process exits. The bundles'
// own lazy requires of each other (./agentd-tools.js, ./agentd-sdk.js) go through the same loader.
import { closeSync, openSync, readFileSync, readSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import { SECRET_ENV_NAMES, extraSecretNames } from '../util/secrets.js';

/**
 * V8 settings for a long-running daemon (see tuneV8), and every flag they change back at its default value:
 * --liftoff-only also turns off --wasm-tier-up and --wasm-dynamic-tiering (V8 flag implications), and with any
 * of them left changed Node's code cache stays invalid (measured: 35 ms to load node:http & co. instead of 15).
 */
const TUNED = ['--semi-space-growth-factor=1', '--liftoff-only', '--expose-gc'];
const DEFAULTS = ['--semi-space-growth-factor=2', '--no-liftoff-only', '--liftoff', '--wasm-tier-up', '--wasm-dynamic-tiering', '--no-expose-gc'];
let tuned = false;

/** The built-ins the daemon needs before it answers `initialize`, loaded before the flags change. */
const EARLY_BUILTINS = ['node:console', 'node:net', 'node:os', 'node:stream', 'node:stream/promises', 'node:string_decoder'];

/**
 * Runs `fn` (loading built-in modules) under V8's default flags: Node compiles its built-ins from an embedded
 * code cache that is valid only while every V8 flag has its default value. (agentd's own bundles are compiled,
 * and their caches written, under the tuned flags: the same every run, so those caches stay valid.)
 */
function withDefaultFlags<T>(fn: () => T): T {
  if (!tuned) return fn();
  for (const f of DEFAULTS) setFlagsFromString(f);
  try {
    return fn();
  } finally {
    for (const f of TUNED) setFlagsFromString(f);
  }
}

/**
 * Built-ins a lazy bundle's code needs, loaded just before the bundle under the default flags rather than on
 * first use under the tuned ones (without Node's code cache: node:http, node:https and undici, which the SDK's
 * Headers pulls in, take 35 ms instead of 15 on the first model call).
 */
const WITH_BUNDLE: Record<string, () => void> = {
  'agentd-sdk.js': () => {
    require('node:http');
    require('node:https');
    void new Headers();
    void new Response(null);
  },
  'agentd-tools.js': () => {
    require('node:child_process');
    require('node:crypto');
    require('node:fs/promises');
  },
  'agentd-log.js': () => {
    require('node:assert');
    require('node:worker_threads');
  },
};

type Wrapped = (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;

const loaded = new Map<string, unknown>();

function cachedScript(file: string): Script {
  const source = readFileSync(file, 'utf8');
  const cacheFile = `${file}.cache`;
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // The bundles contain no import(): the build turns them into require() calls, which this loader serves.
  const script = new Script(Module.wrap(source), { filename: file, ...(cachedData ? { cachedData } : {}) });
  if (!cachedData || script.cachedDataRejected === true) {
    // At exit, so the functions compiled while serving are in the cache too. Best effort: a read-only install
    // just runs without one.
    process.once('exit', () => {
      try {
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cacheFile);
      } catch {
        // not writable: fine
      }
    });
  }
  return script;
}

function requireFor(file: string): NodeJS.Require {
  const base = createRequire(file);
  const dir = dirname(file);
  const req = ((id: string): unknown => {
    if (id.startsWith('./agentd-') && id.endsWith('.js')) return load(join(dir, id));
    return base(id);
  }) as NodeJS.Require;
  return Object.assign(req, { resolve: base.resolve, cache: base.cache, extensions: base.extensions, main: base.main });
}

/** Loads (once) and returns a bundle's module.exports. */
export function load(file: string): unknown {
  if (loaded.has(file)) return loaded.get(file);
  const mod = { exports: {} as unknown, id: file, filename: file, loaded: false };
  loaded.set(file, mod.exports);
  const preload = WITH_BUNDLE[basename(file)];
  if (preload) withDefaultFlags(preload);
  const fn = cachedScript(file).runInThisContext() as Wrapped;
  fn.call(mod.exports, mod.exports, requireFor(file), mod, file, dirname(file));
  mod.loaded = true;
  loaded.set(file, mod.exports);
  return mod.exports;
}

/**
 * Memory settings for a long-running daemon, applied at run time after the built-ins `initialize` needs are
 * loaded: a V8 flag on node's command line (even through bin/agentd) costs ~8 ms of start-up, because Node's
 * embedded code cache for its built-in modules is valid only under the default flags. Built-ins needed later
 * are loaded with the lazy bundles, through withDefaultFlags, for the same reason.
 *  - --semi-space-growth-factor=1: the young generation keeps the 1 MiB semi-spaces it starts with. By default
 *    V8 doubles them up to 16 MiB as a session runs: +30 MiB of resident memory over a 200-turn session
 *    (BENCHMARKS.md, session-200-turns). The price is more young-generation GCs: ~20% of the synthetic
 *    200k-deltas stream benchmark, nothing a model's real stream rate comes near.
 *  - --liftoff-only: the shell parser (tree-sitter, WebAssembly) stays on V8's baseline compiler. Optimising its
 *    hot functions costs ~15 MiB of compiler memory that glibc keeps; parsing a command takes microseconds
 *    either way. (--no-wasm-tier-up has no effect once V8 is running; this does.)
 *  - --expose-gc: for memory.ts (collection at turn ends). Only contexts created from now on get `gc`, not
 *    agentd's own.
 */
function tuneV8(): void {
  for (const id of EARLY_BUILTINS) require(id);
  for (const f of TUNED) setFlagsFromString(f);
  tuned = true;
}

/**
 * bin/agentd's shell lines move the credentials out of the environment onto a pipe (AGENTD_SECRETS_FD, one
 * `//NAME=value` line each): read them into process.env here, before anything else runs. Values set with
 * process.env live in the heap, not in the environment block the kernel shows in /proc/<pid>/environ (and
 * `ps e`), which stays as exec left it: without them. Children get childEnvironment() as before.
 */
function takeSecrets(): void {
  const fdText = process.env['AGENTD_SECRETS_FD'];
  if (fdText === undefined) return;
  delete process.env['AGENTD_SECRETS_FD'];
  const fd = Number(fdText);
  if (!Number.isInteger(fd) || fd < 3) return;
  let text = '';
  try {
    text = readFileSync(fd, 'utf8');
  } catch {
    return; // not the launcher's pipe: nothing to take
  } finally {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }
  for (const line of text.split('\n')) {
    const m = /^\/\/([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(line);
    if (m) process.env[m[1] as string] = m[2];
  }
}

/**
 * Started without bin/agentd's shell lines (`node bin/agentd`, the native executable), the credentials are still
 * in the environment block the kernel shows as /proc/<pid>/environ (and `ps e`) to every process of the same
 * user — tools included. Linux lets a process write its own memory through /proc/self/mem: each secret's value
 * is overwritten with `*` there, after process.env has taken a heap copy (setenv), so agentd keeps using it.
 * Skipped when no secret is in the environment (the usual case under bin/agentd: the shell lines took them out).
 * Returns what it did, for the test: the names scrubbed, or why nothing was.
 */
export function scrubEnvironBlock(env: NodeJS.ProcessEnv = process.env): { scrubbed: string[] } | { skipped: string } {
  const names = [...SECRET_ENV_NAMES, ...extraSecretNames(env)].filter((n) => env[n] !== undefined && env[n] !== '');
  if (names.length === 0) return { skipped: 'no secrets in the environment' };
  if (process.platform !== 'linux') return { skipped: 'not Linux' };
  let fd: number | undefined;
  try {
    // /proc/<pid>/stat: fields 50 and 51 are env_start and env_end (proc(5)); the comm field may hold spaces.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[50 - 3]);
    const end = Number(fields[51 - 3]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start || end - start > 4 * 1024 * 1024) return { skipped: 'no environment block' };
    fd = openSync('/proc/self/mem', 'r+');
    const block = Buffer.alloc(end - start);
    readSync(fd, block, 0, block.length, start);
    const scrubbed: string[] = [];
    for (const name of names) {
      const value = env[name] as string;
      const key = Buffer.from(`${name}=`);
      for (let i = block.indexOf(key); i !== -1; i = block.indexOf(key, i + 1)) {
        if (i !== 0 && block[i - 1] !== 0) continue;
        const from = i + key.length;
        const to = block.indexOf(0, from);
        if (to <= from) continue;
        // A heap copy first (setenv): once the block is overwritten, getenv must not read it.
        env[name] = `${value}`;
        block.fill(0x2a, from, to);
        writeSync(fd, block, from, to - from, start + from);
        if (!scrubbed.includes(name)) scrubbed.push(name);
      }
      env[name] = value;
    }
    return { scrubbed };
  } catch (err) {
    return { skipped: `cannot write /proc/self/mem: ${(err as Error).message}` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * How the daemon's bundles are loaded:
 *  - `vm-cache`: the V8 flags of tuneV8 and this file's vm.Script code-cache loader (the default);
 *  - `compile-cache`: the same flags, the bundles through Node's own require with its module compile cache
 *    (module.enableCompileCache, Node ≥ 22.1), kept in dist/.compile-cache;
 *  - `plain`: none of the tricks — Node's require, no V8 flags, no code cache. The fallback every trick has.
 * AGENTD_LOADER chooses (for tests and the benchmarks); `compile-cache` where Node lacks it is `vm-cache`.
 * Which is fastest on which Node is measured in BENCHMARKS.md ("Start-up by Node version").
 */
export type Loader = 'vm-cache' | 'compile-cache' | 'plain';

type EnableCompileCache = (dir?: string) => unknown;

export function chooseLoader(env: NodeJS.ProcessEnv, enableCompileCache: EnableCompileCache | undefined): Loader {
  const want = env['AGENTD_LOADER'];
  if (want === 'plain') return 'plain';
  if (want === 'compile-cache') return enableCompileCache ? 'compile-cache' : 'vm-cache';
  return 'vm-cache';
}

export function launch(file: string): void {
  scrubEnvironBlock();
  takeSecrets();
  // bin/agentd sets GLIBC_TUNABLES for this process only (glibc has read it by now): tools, hooks and MCP
  // servers get the environment the host gave agentd.
  if (process.env['AGENTD_SET_GLIBC_TUNABLES'] === '1') {
    delete process.env['GLIBC_TUNABLES'];
    delete process.env['AGENTD_SET_GLIBC_TUNABLES'];
  }
  // Feature detection: Node 20 has no module compile cache (added in 22.1).
  const enableCompileCache = (Module as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  const loader = chooseLoader(process.env, enableCompileCache);
  if (loader === 'plain') {
    require(file);
    return;
  }
  tuneV8();
  if (loader === 'compile-cache' && enableCompileCache) {
    // A read-only install just runs without it (Node reports the failure in the return value, never throws).
    enableCompileCache.call(Module, join(dirname(file), '.compile-cache'));
    require(file);
    return;
  }
  load(file);
}
