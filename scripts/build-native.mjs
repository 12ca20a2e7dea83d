// Builds the native executable: one file that runs agentd with no Node.js installed (Node's single-executable
// application support). Usage: node scripts/build-native.mjs [--out <file>]   (after scripts/build.mjs;
// `npm run build:native` runs both). Default output: dist-native/agentd.
//
// The executable is a copy of the Node binary running this script with a SEA blob injected: the blob holds the
// main script (src/cli/native.ts: extraction + the launcher) and, as assets, everything agentd reads from its
// install at run time, laid out as there:
//   agentd.js agentd-tools.js agentd-sdk.js agentd-mcp.js agentd-log.js agentd-cli.js (+ their warm V8 code caches), package.json
//   node_modules/{ajv,picomatch,turndown} each bundled into one CommonJS file (the bundles require them by name)
//   node_modules/web-tree-sitter        its CommonJS build and WASM, as published
//   node_modules/tree-sitter-bash       the grammar's WASM
//   node_modules/@vscode/ripgrep-linux-<arch>  the ripgrep binary agentd ships (≈ 5.5 MB; tools/ripgrep.ts finds it
//                                       there as from the npm install), extracted executable
// A scan of the bundles fails the build if they require any other package, so a new run-time dependency cannot
// silently break the native build.
//
// Node 25.5+ has `--build-sea` (blob and injection in one step, no postject); it is used when this Node
// has it. Otherwise (Node 20, 22): `--experimental-sea-config` writes the blob and postject (the Node project's
// injector) puts it into the copy. The copy is stripped (debug information, symbols) first when `strip` exists.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const { values } = parseArgs({ options: { out: { type: 'string' }, quiet: { type: 'boolean', default: false } } });
const out = resolve(values.out ?? join(root, 'dist-native', 'agentd'));
const t0 = performance.now();
const log = (m) => {
  if (!values.quiet) process.stderr.write(`${m}\n`);
};

if (process.platform !== 'linux') {
  // macOS and Windows need their own injection flags and code signing; not built or tested here.
  process.stderr.write(`build-native: only Linux is supported (this is ${process.platform})\n`);
  process.exit(2);
}
if (!existsSync(join(dist, '.built'))) {
  process.stderr.write('build-native: dist/ is not built: run `node scripts/build.mjs` first (or `npm run build:native`)\n');
  process.exit(2);
}

const stage = mkdtempSync(join(tmpdir(), 'agentd-native-build-'));
const tmpOut = `${out}.${process.pid}.tmp`;
try {
  /** asset key (path inside the extracted directory) → file in the stage or dist */
  const assets = new Map();
  const add = (key, file) => assets.set(key, file);

  // agentd's bundles and the code caches dist/ has (the build's warm-up run wrote them with this Node, so they
  // are valid in the executable), copied first: a running bin/agentd may rewrite a cache while this reads.
  const own = [...['agentd.js', 'agentd-tools.js', 'agentd-sdk.js', 'agentd-mcp.js', 'agentd-log.js', 'agentd-cli.js', 'package.json'], ...readdirSync(dist).filter((f) => f.endsWith('.js.cache'))];
  for (const f of own) {
    copyFileSync(join(dist, f), join(stage, f));
    add(f, join(stage, f));
  }

  // The packages the bundles require by name at run time.
  const pkgDir = (name) => join(root, 'node_modules', name);
  const version = (name) => JSON.parse(readFileSync(join(pkgDir(name), 'package.json'), 'utf8')).version;
  // turndown (with its DOM, @mixmark-io/domino) is required by WebFetch's converter thread (html-markdown.ts).
  const bundled = ['ajv', 'picomatch', 'turndown'];
  await Promise.all(
    bundled.map((name) =>
      build({
        stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: root, loader: 'js' },
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        minify: true,
        legalComments: 'none',
        logLevel: 'warning',
        outfile: join(stage, 'node_modules', name, 'index.js'),
      }),
    ),
  );
  for (const name of bundled) {
    const pj = join(stage, 'node_modules', name, 'package.json');
    writeFileSync(pj, `${JSON.stringify({ name, version: version(name), type: 'commonjs', main: 'index.js' })}\n`);
    add(`node_modules/${name}/package.json`, pj);
    add(`node_modules/${name}/index.js`, join(stage, 'node_modules', name, 'index.js'));
  }
  const wts = pkgDir('web-tree-sitter');
  const wtsPj = join(stage, 'node_modules', 'web-tree-sitter', 'package.json');
  mkdirSync(dirname(wtsPj), { recursive: true });
  writeFileSync(
    wtsPj,
    `${JSON.stringify({
      name: 'web-tree-sitter',
      version: version('web-tree-sitter'),
      exports: { '.': { require: './web-tree-sitter.cjs' }, './web-tree-sitter.wasm': './web-tree-sitter.wasm' },
    })}\n`,
  );
  add('node_modules/web-tree-sitter/package.json', wtsPj);
  add('node_modules/web-tree-sitter/web-tree-sitter.cjs', join(wts, 'web-tree-sitter.cjs'));
  add('node_modules/web-tree-sitter/web-tree-sitter.wasm', join(wts, 'web-tree-sitter.wasm'));
  const tsbPj = join(stage, 'node_modules', 'tree-sitter-bash', 'package.json');
  mkdirSync(dirname(tsbPj), { recursive: true });
  writeFileSync(tsbPj, `${JSON.stringify({ name: 'tree-sitter-bash', version: version('tree-sitter-bash') })}\n`);
  add('node_modules/tree-sitter-bash/package.json', tsbPj);
  add('node_modules/tree-sitter-bash/tree-sitter-bash.wasm', join(pkgDir('tree-sitter-bash'), 'tree-sitter-bash.wasm'));

  // ripgrep, for Grep and the command sandbox's scan on a machine without one: carried rather than required, as
  // Claude Code's own executable embeds it (the executable's point is to need nothing installed). The bundles
  // find it as @vscode/ripgrep does from an npm install: <dir>/node_modules/@vscode/ripgrep-<platform>-<arch>/bin/rg.
  const rgPkg = `@vscode/ripgrep-${process.platform}-${process.arch}`;
  if (!existsSync(join(pkgDir(rgPkg), 'bin', 'rg'))) throw new Error(`${rgPkg} is not installed (an optional dependency of @vscode/ripgrep): run npm ci without --omit=optional`);
  const rgPj = join(stage, 'node_modules', ...rgPkg.split('/'), 'package.json');
  mkdirSync(dirname(rgPj), { recursive: true });
  writeFileSync(rgPj, `${JSON.stringify({ name: rgPkg, version: version(rgPkg), license: 'MIT' })}\n`);
  add(`node_modules/${rgPkg}/package.json`, rgPj);
  add(`node_modules/${rgPkg}/LICENSE`, join(pkgDir(rgPkg), 'LICENSE'));
  add(`node_modules/${rgPkg}/bin/rg`, join(pkgDir(rgPkg), 'bin', 'rg'));
  /** Assets extracted with the executable bit. */
  const executables = [`node_modules/${rgPkg}/bin/rg`];

  // Every package the bundles name at run time must be among the assets.
  // Left out on purpose: @anthropic-ai/sandbox-runtime (ESM with native helpers found next to its modules). Its
  // require fails in the executable, so `sandbox` settings that enable it fail start-up there
  // (sandbox_required_unavailable, fail closed) unless failIfUnavailable is false.
  const absent = new Set(['@anthropic-ai/sandbox-runtime']);
  const provided = new Set([...bundled, ...absent, 'web-tree-sitter', 'web-tree-sitter/web-tree-sitter.wasm', 'tree-sitter-bash/tree-sitter-bash.wasm']);
  const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
  const missing = new Set();
  for (const f of ['agentd.js', 'agentd-tools.js', 'agentd-sdk.js', 'agentd-mcp.js', 'agentd-log.js', 'agentd-cli.js']) {
    const text = readFileSync(join(dist, f), 'utf8');
    for (const m of text.matchAll(/(?:\brequire|\.resolve|createRequire\)\(__agentdImportMetaUrl\))\("([^"]+)"\)/g)) {
      const id = m[1];
      // Code inside a string is not a require (ajv keeps `require("ajv/dist/runtime/…")` snippets for its
      // standalone code generation, which agentd does not use).
      if (["'", '`'].includes(text[m.index - 1])) continue;
      if (!builtins.has(id) && !id.startsWith('./agentd-') && !provided.has(id)) missing.add(`${id} (${f})`);
    }
  }
  if (missing.size) throw new Error(`the bundles require packages the native build does not carry: ${[...missing].join(', ')}`);

  // One directory per build: a hash of every asset and of the Node it runs on.
  const hash = createHash('sha256').update(`${process.version} ${process.arch}\n`);
  const keys = [...assets.keys()].sort();
  for (const k of keys) hash.update(`${k}\n`).update(readFileSync(assets.get(k)));
  const buildId = `${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}-${hash.digest('hex').slice(0, 16)}`;

  const main = join(stage, 'main.js');
  await build({
    entryPoints: [join(root, 'src/cli/native.ts')],
    outfile: main,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
    define: { AGENTD_NATIVE_BUILD: JSON.stringify(buildId), AGENTD_NATIVE_FILES: JSON.stringify(keys), AGENTD_NATIVE_EXECUTABLES: JSON.stringify(executables) },
  });

  mkdirSync(dirname(out), { recursive: true });
  const config = {
    main,
    output: join(stage, 'sea.blob'),
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
    assets: Object.fromEntries(keys.map((k) => [k, assets.get(k)])),
  };
  const run = (cmd, args) => {
    const r = spawnSync(cmd, args, { encoding: 'utf8', cwd: stage });
    if (r.error || r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.error?.message ?? ''}${r.stderr ?? ''}${r.stdout ?? ''}`);
    return r;
  };
  const nodeHelp = run(process.execPath, ['--help']).stdout;
  copyFileSync(process.execPath, tmpOut);
  chmodSync(tmpOut, 0o755);
  // Debug information and the symbol table (~12 MB of this Node binary) are nothing the executable needs (the dynamic symbols stay).
  const strip = spawnSync('strip', ['--strip-all', tmpOut], { encoding: 'utf8' });
  const stripped = !strip.error && strip.status === 0;
  if (nodeHelp.includes('--build-sea')) {
    const cfg = join(stage, 'sea.json');
    writeFileSync(cfg, JSON.stringify({ ...config, executable: tmpOut, output: `${tmpOut}.sea` }));
    run(process.execPath, ['--build-sea', cfg]);
    rmSync(tmpOut, { force: true });
    renameSync(`${tmpOut}.sea`, tmpOut);
    chmodSync(tmpOut, 0o755);
  } else {
    const cfg = join(stage, 'sea.json');
    writeFileSync(cfg, JSON.stringify(config));
    run(process.execPath, ['--experimental-sea-config', cfg]);
    // postject's CLI in a child: its ELF library prints warnings about this binary's many note sections that
    // mean nothing here; they are shown only if it fails.
    const cli = createRequire(import.meta.url).resolve('postject/dist/cli.js');
    const r = spawnSync(process.execPath, [cli, tmpOut, 'NODE_SEA_BLOB', config.output, '--sentinel-fuse', SENTINEL_FUSE], { encoding: 'utf8' });
    if (r.status !== 0) {
      // e.g. a distribution's Node built without single-executable support (no sentinel fuse in the binary)
      throw new Error(`cannot make ${process.execPath} a single executable (postject: ${`${r.error?.message ?? ''}${r.stderr}`.trim().split('\n').slice(-3).join(' ')}): build with an official Node.js binary`);
    }
  }
  // Smoke: the executable starts and answers --version (extracting into the stage, not the user's cache).
  const smoke = spawnSync(tmpOut, ['--version'], { encoding: 'utf8', env: { PATH: '', HOME: stage, AGENTD_NATIVE_CACHE: join(stage, 'cache') }, timeout: 60_000 });
  if (smoke.status !== 0 || !/agentd/.test(smoke.stdout)) {
    throw new Error(`the built executable does not run: exit ${String(smoke.status)} ${smoke.error?.message ?? ''}\n${smoke.stdout}${smoke.stderr}`);
  }
  renameSync(tmpOut, out);

  const mib = (statSync(out).size / 2 ** 20).toFixed(1);
  log(
    `build-native: ${out} (${mib} MiB, Node ${process.version}${stripped ? ', debug info stripped' : ''}, build ${buildId}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
} finally {
  rmSync(stage, { recursive: true, force: true });
  rmSync(tmpOut, { force: true });
  rmSync(`${tmpOut}.sea`, { force: true });
}
