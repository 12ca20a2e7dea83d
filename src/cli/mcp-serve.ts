// `agentd mcp serve`: agentd's built-in tools as an MCP server on stdio (Claude Code's `claude mcp serve`).
// Claude Code runs every call it is sent without any permission check. agentd does not: each call goes through
// the executor's fixed pipeline with the permission layer of a normal session (settings rules, --allowedTools /
// --disallowedTools, the permission mode from --permission-mode or the settings' defaultMode, the shell
// analyser, protected paths). Nobody can be asked, so what would ask is refused (as under `dontAsk`), with the
// rule that would allow it named. Hooks are not run by this server: settings that define PreToolUse,
// PostToolUse or PermissionRequest hooks make it refuse to start rather than let calls bypass them.
import type { Readable } from 'node:stream';
import { resolve } from 'node:path';
import type { ServedResult, ServedTool } from '../mcp/serve.js';
import { configFrom } from './app-config.js';
import { setUpTools } from './app-tools.js';
import { parseArgv } from './flags.js';
import { resolveOptions } from './options.js';
import { shellAnalyzer } from './shell-analyzer.js';
import { createLogger } from '../log/logger.js';
import { readEnv } from '../config/env.js';
import { StreamingToolExecutor } from '../executor/executor.js';
import { passThroughHooks } from '../executor/pipeline.js';
import { DEFAULT_PROGRESS } from '../executor/progress.js';
import { discoverGitDir, gitHooksDirs } from '../permissions/command-paths.js';
import { createPermissionLayer } from '../permissions/layer.js';
import { RuleSet } from '../permissions/rules.js';
import { toApiSchema } from '../tools/registry.js';
import type { AnyTool, SharedToolContext } from '../tools/tool.js';
import type { ToolResultContent } from '../model/types.js';
import type { LogLevel } from '../log/logger.js';
import { newUuid } from '../util/ids.js';
import { AGENTD_VERSION } from '../version.js';
import { SUB_EXIT, type SubExit, type SubcommandIO } from './subcommands/types.js';
import { fixedUpdateTarget } from '../permissions/updates.js';

/** Built-ins that need a model, a host or a session to mean anything: not served. */
const NOT_SERVED = new Set(['WebSearch', 'WebFetch', 'TodoWrite', 'TaskStop']);
const LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const HOOK_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest']);

export const MCP_SERVE_HELP = [
  'Usage: agentd [flags] mcp serve',
  '',
  "Serve agentd's built-in tools (Bash, Read, Write, Edit, Glob, Grep, NotebookEdit) as an MCP server on stdio.",
  'Every call is judged as in a session that cannot ask: settings rules, --allowedTools/--disallowedTools and',
  '--permission-mode (given before `mcp`) decide; what would need a permission prompt is refused.',
];

export async function runMcpServe(args: readonly string[], io: SubcommandIO & { stdin?: Readable }): Promise<SubExit> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(`${MCP_SERVE_HELP.join('\n')}\n`);
    return SUB_EXIT.ok;
  }
  // Claude Code's own `mcp serve` options (-d/--debug, --verbose) change only its logging.
  const unknown = args.filter((a) => !['-d', '--debug', '--verbose'].includes(a));
  if (unknown.length) {
    io.stderr.write(`error: unknown option '${unknown[0] ?? ''}' for 'mcp serve'\n`);
    return SUB_EXIT.usage;
  }
  const asked = readEnv(io.env).logLevel;
  const level: LogLevel = LEVELS.find((l) => l === asked) ?? 'warn';
  const logger = createLogger({ level, secrets: [] });
  const opts = resolveOptions(parseArgv(io.globalArgs), io.env);
  const config = configFrom(opts, { env: io.env, cwd: io.cwd }, logger);
  const hooks = config.settings.commandHooks.filter((h) => HOOK_EVENTS.has(h.event));
  if (hooks.length) {
    io.stderr.write(
      `agentd mcp serve does not run hooks, and the settings define ${[...new Set(hooks.map((h) => h.event))].join(', ')} hooks (${[...new Set(hooks.map((h) => h.source))].join(', ')}): refusing to serve tools that would bypass them.\n`,
    );
    return SUB_EXIT.no;
  }
  const appIo = { stdin: io.stdin ?? process.stdin, stdout: io.stdout, env: io.env, cwd: io.cwd, logger, fatal: () => undefined };
  const rules = new RuleSet();
  rules.add(config.permissions.rules);
  const setup = setUpTools(opts, appIo, config, { block: config.settings.sandbox, allowRules: rules.byBehavior('allow') });
  // As the daemon (main.ts): whatever ends the process, no tool outlives it and its temporary folder goes.
  process.once('exit', () => {
    setup.tracker.killAllNow();
    setup.spill.remove();
  });
  setup.loadTools();
  await setup.toolsReady;
  const served: AnyTool[] = setup.tools
    .names()
    .map((n) => setup.tools.get(n))
    .filter((t): t is AnyTool => t !== undefined && !NOT_SERVED.has(t.name));
  const trustedGitDir = discoverGitDir(io.cwd);
  let shared: SharedToolContext = { cwd: io.cwd, additionalDirectories: config.permissions.additionalDirectories.map((d) => resolve(io.cwd, d)) };
  const mode = config.permissions.startMode;
  const permissions = createPermissionLayer({
    rules,
    getMode: () => mode,
    analyzer: shellAnalyzer,
    readOnlySandbox: setup.readOnlySandbox,
    ...(setup.sandboxSetup.autoAllow ? { sandboxAutoAllow: setup.sandboxSetup.autoAllow } : {}),
    // Nobody to ask: what would ask is denied.
    prompter: undefined,
    projectDir: io.cwd,
    trustedGitDir,
    hooksDirs: gitHooksDirs(trustedGitDir, io.cwd),
    updates: fixedUpdateTarget(rules, io.cwd, 'agentd mcp serve does not change permissions'),
    logger,
  });
  const byName = new Map(served.map((t) => [t.name, t]));
  const call = async (name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<ServedResult> => {
    const exec = new StreamingToolExecutor(
      {
        tools: { get: (n) => byName.get(n) },
        hooks: passThroughHooks,
        permissions,
        maxConcurrency: 1,
        env: setup.toolEnv,
        getShared: () => shared,
        setShared: (s) => (shared = s),
        emit: () => undefined,
        now: () => Date.now(),
        newUuid,
        logger,
        progress: DEFAULT_PROGRESS,
      },
      signal,
    );
    exec.add({ type: 'tool_use', id: `toolu_serve_${newUuid().replaceAll('-', '')}`, name, input });
    exec.release();
    const [rec] = await exec.settle();
    if (!rec) return { content: [{ type: 'text', text: 'no result' }], isError: true };
    return { content: servedContent(rec.block.content), isError: rec.block.is_error === true };
  };
  const tools: ServedTool[] = served.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: structuredClone(t.inputJsonSchema ?? toApiSchema(t.inputSchema)),
    readOnly: isReadOnlyTool(t),
  }));
  const mod = await import('../mcp/lazy-entry.js');
  await mod.serveTools({ tools, call, version: AGENTD_VERSION, stdin: appIo.stdin, stdout: io.stdout });
  await setup.tracker.killAll(2000);
  return SUB_EXIT.ok;
}

/** A tool_result's content as MCP content: text and base64 images (a document block is named, not sent). */
function servedContent(c: ToolResultContent): ServedResult['content'] {
  if (typeof c === 'string') return [{ type: 'text', text: c }];
  return c.map((b) =>
    b.type === 'text'
      ? { type: 'text' as const, text: b.text }
      : b.type === 'image' && b.source.type === 'base64'
        ? { type: 'image' as const, data: b.source.data, mimeType: b.source.media_type }
        : { type: 'text' as const, text: `[${b.type} block not representable over MCP]` },
  );
}

function isReadOnlyTool(t: AnyTool): boolean {
  try {
    return t.isReadOnly({});
  } catch {
    return false;
  }
}
