// MEASUREMENT (not part of npm test): what Claude Code 2.1.330 does with links and protected paths under its file
// tools (Write/Edit through a symbolic link or a hard link, sensitive names in acceptEdits/bypass/dontAsk, Read of a
// denied file through a hard link) and with MCP annotations (readOnlyHint, file:// resources, `mcp__h__*` against a
// server named `h__x`). Drives the reference binary through the TS SDK against the loopback model.
// Run: npx vitest run -c test/measure/vitest.measure.config.ts test/measure/links-annotations.measure.ts
// (ONLY=prefix,prefix runs some variants.)
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { it } from 'vitest';
import { z } from 'zod';
import { type McpServerConfig, type PermissionMode, createSdkMcpServer, query, tool } from '@anthropic-ai/claude-agent-sdk';
import { startLoopbackServer } from '../support/loopback-server.js';
import { ROOT, tempDir } from '../support/daemon.js';

const CLAUDE = join(ROOT, 'node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude');
const FIXTURE = join(ROOT, 'test/fixtures/mcp-stdio-server.mjs');

type Use = { name: string; input: Record<string, unknown> };
interface Ctx { cwd: string; out: string }
interface Variant {
  name: string;
  mode?: PermissionMode;
  allowed?: string[];
  disallowed?: string[];
  answer?: 'allow' | 'deny';
  setup?: (c: Ctx) => void;
  /** One model turn per entry; every use of a turn is sent in parallel. */
  steps: (c: Ctx) => Use[][];
  check?: (c: Ctx) => string;
  mcp?: (c: Ctx) => Record<string, McpServerConfig>;
  env?: Record<string, string>;
  /** Allow rules that depend on the temp directories. */
  allowedFor?: (c: Ctx) => string[];
}

const w = (p: string, s: string) => {
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, s);
};
const stateOf = (p: string): string => {
  try {
    const l = lstatSync(p);
    return `${l.isSymbolicLink() ? 'symlink' : 'file'} ino=${l.ino} nlink=${l.nlink} mode=${(l.mode & 0o7777).toString(8)} content=${JSON.stringify(l.isSymbolicLink() ? `->${realpathSync(p)}` : readFileSync(p, 'utf8'))}`;
  } catch {
    return 'absent';
  }
};

const SENSITIVE = [
  'ok.txt', '.mcp.json', '.gitmodules', '.gitattributes', '.gitignore', '.vscode/settings.json', '.idea/workspace.xml', '.husky/pre-commit',
  '.bashrc', '.envrc', 'package.json', '.claude/settings.json', '.claude/commands/x.md', '.claude/agents/x.md', '.claude/skills/s/SKILL.md',
  '.git/config', '.git/hooks/pre-commit', '.npmrc', '.cargo/config.toml', '.devcontainer/devcontainer.json', '.github/workflows/ci.yml',
  'Makefile', '.pre-commit-config.yaml', '.gitconfig', '.config/git/config', 'sub/.mcp.json', 'sub/.git/config', '.yarn/x.js', '.mvn/jvm.config',
  '.profile', '.zshenv', 'lefthook.yml', '.ripgreprc', 'CLAUDE.md', '.editorconfig', 'pyproject.toml', 'setup.py', '.env', 'tsconfig.json',
];
const writeAll = (c: Ctx): Use[][] => [SENSITIVE.map((f) => ({ name: 'Write', input: { file_path: join(c.cwd, f), content: 'x\n' } }))];
const written = (c: Ctx) => `written: ${SENSITIVE.filter((f) => existsSync(join(c.cwd, f))).join(' ')}`;

function marker(c: Ctx) {
  return createSdkMcpServer({
    name: 'h',
    tools: [tool('mark', 'writes a marker', { n: z.string() }, async (a) => {
      writeFileSync(join(c.cwd, `marker-${a.n}`), 'x');
      return { content: [{ type: 'text', text: 'marked' }] };
    }, { annotations: { readOnlyHint: true } })],
  });
}
const markerVariant = (mode: PermissionMode): Variant => ({
  name: `M1 readOnlyHint tool in ${mode}`,
  mode,
  ...(mode === 'bypassPermissions' ? { env: { IS_SANDBOX: '1' } } : {}),
  mcp: (c) => ({ h: marker(c) }),
  steps: () => [[{ name: 'mcp__h__mark', input: { n: 'a' } }]],
  check: (c) => `marker=${existsSync(join(c.cwd, 'marker-a'))}`,
});
const serverVariant = (name: string, server: string, allowed: string[]): Variant => ({
  name,
  allowed,
  mcp: (c) => ({ [server]: createSdkMcpServer({ name: server, tools: [tool('t', 'writes a marker', {}, async () => {
    writeFileSync(join(c.cwd, 'marker-t'), 'x');
    return { content: [{ type: 'text', text: 'ran' }] };
  })] }) }),
  steps: () => [[{ name: `mcp__${server}__t`, input: {} }]],
  check: (c) => `marker=${existsSync(join(c.cwd, 'marker-t'))}`,
});

const variants: Variant[] = [
  {
    name: 'S1 Write through a symlink inside the project (acceptEdits)', mode: 'acceptEdits', answer: 'allow',
    setup: (c) => { w(join(c.cwd, 'target.txt'), 'old\n'); symlinkSync('target.txt', join(c.cwd, 'link.txt')); },
    steps: (c) => [[{ name: 'Read', input: { file_path: join(c.cwd, 'link.txt') } }], [{ name: 'Write', input: { file_path: join(c.cwd, 'link.txt'), content: 'new\n' } }]],
    check: (c) => `link: ${stateOf(join(c.cwd, 'link.txt'))} | target: ${stateOf(join(c.cwd, 'target.txt'))}`,
  },
  {
    name: 'S2 Edit through a symlink inside the project (acceptEdits)', mode: 'acceptEdits', answer: 'allow',
    setup: (c) => { w(join(c.cwd, 'target.txt'), 'old\n'); symlinkSync('target.txt', join(c.cwd, 'link.txt')); },
    steps: (c) => [[{ name: 'Read', input: { file_path: join(c.cwd, 'link.txt') } }], [{ name: 'Edit', input: { file_path: join(c.cwd, 'link.txt'), old_string: 'old', new_string: 'new' } }]],
    check: (c) => `link: ${stateOf(join(c.cwd, 'link.txt'))} | target: ${stateOf(join(c.cwd, 'target.txt'))}`,
  },
  {
    name: 'S3 Write through a symlink to outside (acceptEdits, host allows)', mode: 'acceptEdits', answer: 'allow',
    setup: (c) => { w(join(c.out, 't.txt'), 'old\n'); symlinkSync(join(c.out, 't.txt'), join(c.cwd, 'link.txt')); },
    steps: (c) => [[{ name: 'Read', input: { file_path: join(c.cwd, 'link.txt') } }], [{ name: 'Write', input: { file_path: join(c.cwd, 'link.txt'), content: 'new\n' } }]],
    check: (c) => `link: ${stateOf(join(c.cwd, 'link.txt'))} | target: ${stateOf(join(c.out, 't.txt'))}`,
  },
  {
    name: 'H1 Write a hard-linked file inside the project (acceptEdits, host allows)', mode: 'acceptEdits', answer: 'allow',
    setup: (c) => { w(join(c.cwd, 'a.txt'), 'old\n'); linkSync(join(c.cwd, 'a.txt'), join(c.cwd, 'b.txt')); },
    steps: (c) => [[{ name: 'Read', input: { file_path: join(c.cwd, 'a.txt') } }], [{ name: 'Write', input: { file_path: join(c.cwd, 'a.txt'), content: 'new\n' } }]],
    check: (c) => `a: ${stateOf(join(c.cwd, 'a.txt'))} | b: ${stateOf(join(c.cwd, 'b.txt'))}`,
  },
  {
    name: 'H2 Edit a hard-linked file inside the project (acceptEdits, host allows)', mode: 'acceptEdits', answer: 'allow',
    setup: (c) => { w(join(c.cwd, 'a.txt'), 'old\n'); linkSync(join(c.cwd, 'a.txt'), join(c.cwd, 'b.txt')); },
    steps: (c) => [[{ name: 'Read', input: { file_path: join(c.cwd, 'a.txt') } }], [{ name: 'Edit', input: { file_path: join(c.cwd, 'a.txt'), old_string: 'old', new_string: 'new' } }]],
    check: (c) => `a: ${stateOf(join(c.cwd, 'a.txt'))} | b: ${stateOf(join(c.cwd, 'b.txt'))}`,
  },
  {
    name: 'H3 Edit a hard link to .git/config under allow Edit(./src/**) (default, host denies)', allowed: ['Edit(./src/**)'], answer: 'deny',
    setup: (c) => { w(join(c.cwd, '.git/config'), '[core]\n\tbare = false\n'); mkdirSync(join(c.cwd, 'src')); linkSync(join(c.cwd, '.git/config'), join(c.cwd, 'src/cfg')); },
    steps: (c) => [[{ name: 'Read', input: { file_path: join(c.cwd, 'src/cfg') } }], [{ name: 'Edit', input: { file_path: join(c.cwd, 'src/cfg'), old_string: 'bare = false', new_string: 'fsmonitor = touch pwned' } }]],
    check: (c) => `.git/config: ${stateOf(join(c.cwd, '.git/config'))} | src/cfg: ${stateOf(join(c.cwd, 'src/cfg'))}`,
  },
  {
    name: 'H4 Write a hard link out of the project (acceptEdits, host denies)', mode: 'acceptEdits', answer: 'deny',
    setup: (c) => { w(join(c.out, 'o.txt'), 'old\n'); linkSync(join(c.out, 'o.txt'), join(c.cwd, 'o.txt')); },
    steps: (c) => [[{ name: 'Read', input: { file_path: join(c.cwd, 'o.txt') } }], [{ name: 'Write', input: { file_path: join(c.cwd, 'o.txt'), content: 'new\n' } }]],
    check: (c) => `in: ${stateOf(join(c.cwd, 'o.txt'))} | out: ${stateOf(join(c.out, 'o.txt'))}`,
  },
  {
    name: 'H5 Read a denied file through a hard link (default, host denies)', disallowed: ['Read(./secret.txt)'], answer: 'deny',
    setup: (c) => { w(join(c.cwd, 'secret.txt'), 'SECRET\n'); linkSync(join(c.cwd, 'secret.txt'), join(c.cwd, 'hl.txt')); },
    steps: (c) => [[{ name: 'Read', input: { file_path: join(c.cwd, 'hl.txt') } }]],
  },
  {
    name: 'H6 Read a hard-linked file, no rules (default, host denies)', answer: 'deny',
    setup: (c) => { w(join(c.cwd, 'x.txt'), 'X\n'); linkSync(join(c.cwd, 'x.txt'), join(c.cwd, 'y.txt')); },
    steps: (c) => [[{ name: 'Read', input: { file_path: join(c.cwd, 'y.txt') } }]],
  },
  {
    name: 'H7 Read a hard link to a file outside the project (default, host denies)', answer: 'deny',
    setup: (c) => { w(join(c.out, 'o.txt'), 'OUT\n'); linkSync(join(c.out, 'o.txt'), join(c.cwd, 'o.txt')); },
    steps: (c) => [[{ name: 'Read', input: { file_path: join(c.cwd, 'o.txt') } }]],
  },
  {
    name: 'W1 Write an executable file: mode and inode (acceptEdits)', mode: 'acceptEdits', answer: 'allow',
    setup: (c) => { w(join(c.cwd, 'run.sh'), 'echo old\n'); chmodSync(join(c.cwd, 'run.sh'), 0o754); console.log(`W1 before: ${stateOf(join(c.cwd, 'run.sh'))}`); },
    steps: (c) => [[{ name: 'Read', input: { file_path: join(c.cwd, 'run.sh') } }], [{ name: 'Write', input: { file_path: join(c.cwd, 'run.sh'), content: 'echo new\n' } }]],
    check: (c) => `after: ${stateOf(join(c.cwd, 'run.sh'))}`,
  },
  {
    name: 'W2 Edit an executable file: mode and inode (acceptEdits)', mode: 'acceptEdits', answer: 'allow',
    setup: (c) => { w(join(c.cwd, 'run.sh'), 'echo old\n'); chmodSync(join(c.cwd, 'run.sh'), 0o754); console.log(`W2 before: ${stateOf(join(c.cwd, 'run.sh'))}`); },
    steps: (c) => [[{ name: 'Read', input: { file_path: join(c.cwd, 'run.sh') } }], [{ name: 'Edit', input: { file_path: join(c.cwd, 'run.sh'), old_string: 'old', new_string: 'new' } }]],
    check: (c) => `after: ${stateOf(join(c.cwd, 'run.sh'))}`,
  },
  { name: 'P1 sensitive names, acceptEdits (host denies)', mode: 'acceptEdits', answer: 'deny', steps: writeAll, check: written },
  { name: 'P2 sensitive names, bypassPermissions (host denies)', mode: 'bypassPermissions', env: { IS_SANDBOX: '1' }, answer: 'deny', steps: writeAll, check: written },
  {
    name: 'S4 Write through a symlink, bypassPermissions', mode: 'bypassPermissions', env: { IS_SANDBOX: '1' },
    setup: (c) => { w(join(c.cwd, 'target.txt'), 'old\n'); symlinkSync('target.txt', join(c.cwd, 'link.txt')); },
    steps: (c) => [[{ name: 'Read', input: { file_path: join(c.cwd, 'link.txt') } }], [{ name: 'Write', input: { file_path: join(c.cwd, 'link.txt'), content: 'new\n' } }]],
    check: (c) => `link: ${stateOf(join(c.cwd, 'link.txt'))} | target: ${stateOf(join(c.cwd, 'target.txt'))}`,
  },
  {
    name: 'S5 Write a new file under a symlinked directory inside the project (acceptEdits)', mode: 'acceptEdits', answer: 'deny',
    setup: (c) => { mkdirSync(join(c.cwd, 'real')); symlinkSync('real', join(c.cwd, 'dirlink')); },
    steps: (c) => [[{ name: 'Write', input: { file_path: join(c.cwd, 'dirlink/n.txt'), content: 'new\n' } }]],
    check: (c) => `real/n.txt: ${stateOf(join(c.cwd, 'real/n.txt'))}`,
  },
  {
    name: 'S6 Write a dangling symlink (acceptEdits)', mode: 'acceptEdits', answer: 'deny',
    setup: (c) => { symlinkSync('nowhere.txt', join(c.cwd, 'link.txt')); },
    steps: (c) => [[{ name: 'Write', input: { file_path: join(c.cwd, 'link.txt'), content: 'new\n' } }]],
    check: (c) => `link: ${stateOf(join(c.cwd, 'link.txt'))} nowhere: ${stateOf(join(c.cwd, 'nowhere.txt'))}`,
  },
  {
    name: 'H8 Write a hard link to .mcp.json named x.json (acceptEdits, host denies)', mode: 'acceptEdits', answer: 'deny',
    setup: (c) => { w(join(c.cwd, '.mcp.json'), '{}'); linkSync(join(c.cwd, '.mcp.json'), join(c.cwd, 'x.json')); },
    steps: (c) => [[{ name: 'Read', input: { file_path: join(c.cwd, 'x.json') } }], [{ name: 'Write', input: { file_path: join(c.cwd, 'x.json'), content: '{"mcpServers":{}}' } }]],
    check: (c) => `.mcp.json: ${stateOf(join(c.cwd, '.mcp.json'))} | x.json: ${stateOf(join(c.cwd, 'x.json'))}`,
  },
  {
    name: 'M2 plain MCP tool in plan (host denies)', mode: 'plan', answer: 'deny',
    mcp: (c) => ({ h: createSdkMcpServer({ name: 'h', tools: [tool('plain', 'writes a marker', {}, async () => { writeFileSync(join(c.cwd, 'marker-p'), 'x'); return { content: [{ type: 'text', text: 'ran' }] }; })] }) }),
    steps: () => [[{ name: 'mcp__h__plain', input: {} }]],
    check: (c) => `marker=${existsSync(join(c.cwd, 'marker-p'))}`,
  },
  {
    name: 'N7 server h__x, disallowed mcp__h__* (is the tool offered?)', disallowed: ['mcp__h__*'], answer: 'allow',
    mcp: (c) => ({ h__x: createSdkMcpServer({ name: 'h__x', tools: [tool('t', 'writes a marker', {}, async () => { writeFileSync(join(c.cwd, 'marker-t'), 'x'); return { content: [{ type: 'text', text: 'ran' }] }; })] }) }),
    steps: () => [[{ name: 'mcp__h__x__t', input: {} }]],
    check: (c) => `marker=${existsSync(join(c.cwd, 'marker-t'))}`,
  },
  { name: 'P3 sensitive names, dontAsk + allow Write Edit', mode: 'dontAsk', allowed: ['Write', 'Edit'], steps: writeAll, check: written },
  { name: 'P4 sensitive names, default + allow Edit(./**) (host denies)', allowed: ['Edit(./**)'], answer: 'deny', steps: writeAll, check: written },
  {
    name: 'O1 bare allow Write, Write to an absolute path outside (host denies)', allowed: ['Write', 'Edit'], answer: 'deny',
    steps: (c) => [[{ name: 'Write', input: { file_path: join(c.out, 'n.txt'), content: 'new\n' } }]],
    check: (c) => `out/n.txt: ${stateOf(join(c.out, 'n.txt'))}`,
  },
  {
    name: 'O2 bare allow Write, Write through a symlinked dir to outside (host denies)', allowed: ['Write', 'Edit'], answer: 'deny',
    setup: (c) => symlinkSync(c.out, join(c.cwd, 'outdir')),
    steps: (c) => [[{ name: 'Write', input: { file_path: join(c.cwd, 'outdir/n.txt'), content: 'new\n' } }]],
    check: (c) => `out/n.txt: ${stateOf(join(c.out, 'n.txt'))}`,
  },
  {
    name: 'O3 allow Edit(//out/**) (a rule naming the outside dir), Write there (host denies)', answer: 'deny',
    allowedFor: (c) => [`Edit(/${c.out}/**)`],
    steps: (c) => [[{ name: 'Write', input: { file_path: join(c.out, 'n.txt'), content: 'new\n' } }]],
    check: (c) => `out/n.txt: ${stateOf(join(c.out, 'n.txt'))}`,
  },
  markerVariant('default'),
  markerVariant('acceptEdits'),
  markerVariant('plan'),
  markerVariant('dontAsk'),
  markerVariant('bypassPermissions'),
  {
    name: 'R1 ReadMcpResource file:// outside, inside, fixture:// (default, host denies)', answer: 'deny',
    setup: (c) => w(join(c.cwd, 'in.txt'), 'IN\n'),
    mcp: () => ({ fx: { type: 'stdio', command: process.execPath, args: [FIXTURE] } }),
    steps: (c) => [
      [{ name: 'ListMcpResourcesTool', input: {} }],
      [
        { name: 'ReadMcpResourceTool', input: { server: 'fx', uri: 'file:///etc/hostname' } },
        { name: 'ReadMcpResourceTool', input: { server: 'fx', uri: `file://${join(c.cwd, 'in.txt')}` } },
        { name: 'ReadMcpResourceTool', input: { server: 'fx', uri: 'fixture://notes' } },
      ],
    ],
  },
  {
    name: 'R2 ReadMcpResource file:// under a Read deny rule (default, host denies)', answer: 'deny', disallowed: ['Read(./secret.txt)'],
    setup: (c) => w(join(c.cwd, 'secret.txt'), 'S\n'),
    mcp: () => ({ fx: { type: 'stdio', command: process.execPath, args: [FIXTURE] } }),
    steps: (c) => [[{ name: 'ReadMcpResourceTool', input: { server: 'fx', uri: `file://${join(c.cwd, 'secret.txt')}` } }]],
  },
  serverVariant('N1 server h__x, rule mcp__h__* (default, host denies)', 'h__x', ['mcp__h__*']),
  serverVariant('N2 server h__x, rule mcp__h (default, host denies)', 'h__x', ['mcp__h']),
  serverVariant('N3 server h__x, rule mcp__h__x__* (default, host denies)', 'h__x', ['mcp__h__x__*']),
  serverVariant('N4 server h__x, rule mcp__h__x (default, host denies)', 'h__x', ['mcp__h__x']),
  serverVariant('N5 server h__x, rule mcp__h__x__t (default, host denies)', 'h__x', ['mcp__h__x__t']),
  serverVariant('N6 server h, rule mcp__h__* (control)', 'h', ['mcp__h__*']),
];

const only = process.env['ONLY']?.split(',');
for (const v of variants.filter((x) => !only || only.some((o) => x.name.startsWith(o)))) {
  it(v.name, async () => {
    const c: Ctx = { cwd: realpathSync(tempDir('cc-links-')), out: realpathSync(tempDir('cc-out-')) };
    const home = tempDir('cc-home-');
    mkdirSync(join(home, '.claude'), { recursive: true });
    v.setup?.(c);
    const steps = v.steps(c);
    let id = 0;
    const server = await startLoopbackServer({
      rules: [
        ...steps.map((uses, i) => ({
          when: { assistantTurns: i, hasTool: 'Read' },
          reply: { content: uses.map((u) => ({ type: 'tool_use' as const, id: `toolu_${i}_${++id}`, name: u.name, input: u.input })), stopReason: 'tool_use' as const },
        })),
        { when: { assistantTurns: steps.length }, reply: { content: [{ type: 'text', text: 'done' }] } },
      ],
      fallback: { content: [{ type: 'text', text: 'fallback' }] },
    });
    const asked: string[] = [];
    const results: string[] = [];
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'),
      ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1', ...v.env,
    };
    let init = '';
    try {
      const q = query({
        prompt: 'go',
        options: {
          pathToClaudeCodeExecutable: CLAUDE, cwd: c.cwd, env, model: 'claude-sonnet-4-5',
          ...(v.mode ? { permissionMode: v.mode, ...(v.mode === 'bypassPermissions' ? { allowDangerouslySkipPermissions: true } : {}) } : {}),
          ...(v.allowed || v.allowedFor ? { allowedTools: [...(v.allowed ?? []), ...(v.allowedFor?.(c) ?? [])] } : {}),
          ...(v.disallowed ? { disallowedTools: v.disallowed } : {}),
          ...(v.mcp ? { mcpServers: v.mcp(c) } : {}),
          canUseTool: async (toolName, inp, o) => {
            asked.push(`${toolName}:${JSON.stringify(inp).slice(0, 90)} reason=${JSON.stringify(o.decisionReason ?? null).slice(0, 300)} blocked=${o.blockedPath ?? ''}`);
            return v.answer === 'allow' ? { behavior: 'allow', updatedInput: inp } : { behavior: 'deny', message: 'measured: denied by host' };
          },
        },
      });
      for await (const m of q) {
        if (m.type === 'system' && m.subtype === 'init') init = `mode=${m.permissionMode} mcp=${JSON.stringify(m.mcp_servers)} tools=${m.tools.filter((t) => t.startsWith('mcp') || t.includes('Mcp')).join(',')}`;
        if (m.type === 'user' && Array.isArray(m.message.content)) {
          for (const b of m.message.content) if (b.type === 'tool_result') results.push(`${b.is_error ? 'ERR ' : ''}${(typeof b.content === 'string' ? b.content : JSON.stringify(b.content)).slice(0, 400)}`);
        }
      }
    } finally {
      await server.close();
    }
    console.log(`### ${v.name}\n  init: ${init}\n  asked(${asked.length}):\n    ${asked.join('\n    ')}\n  results:\n    ${results.join('\n    ')}\n  ${v.check?.(c) ?? ''}`);
  }, 180_000);
}
