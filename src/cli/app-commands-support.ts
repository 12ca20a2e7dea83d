// Helpers for app-commands.ts that need the session's parts: the `!` shell runner of custom commands (through
// the permission engine and the Bash tool, fail closed), the `/context` table, and the init-frame fields.
import type { ModelNames } from '../model/model-allowlist.js';
import type { GetContextUsageResponse } from '../../protocol/src/index.js';
import type { ShellRun } from '../commands/expand.js';
import type { InitInfo } from '../control/projector.js';
import type { PermissionGate } from '../executor/pipeline.js';
import type { PermissionLayer } from '../permissions/layer.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { SharedToolContext, ToolEnvironment } from '../tools/tool.js';
import { type ContextSnapshot, estimateContextUsage } from '../control/context-usage.js';
import type { Projector } from '../control/projector.js';
import type { HookRunner } from '../hooks/runner.js';
import type { Session } from '../session/session.js';
import { buildSystemBlocks } from '../session/system-prompt.js';
import { newUuid } from '../util/ids.js';
import type { AppIO } from './app.js';
import { type ProjectSetup, setUpProject } from './app-commands.js';
import type { CliOptions } from './options.js';

export function skillToolAllowed(opts: Pick<CliOptions, 'tools' | 'disallowedTools'>): boolean {
  if (opts.disallowedTools.includes('Skill')) return false;
  return opts.tools === undefined || opts.tools.includes('default') || opts.tools.includes('Skill');
}

export function projectInitInfo(p: ProjectSetup): Pick<InitInfo, 'slashCommands' | 'agents' | 'skills' | 'plugins'> {
  return {
    slashCommands: p.commands().map((c) => c.name),
    agents: p.agents().map((a) => a.name),
    skills: p.skills().map((s) => s.name),
    plugins: p.plugins(),
  };
}

export function commandShellRunner(d: {
  tools: ToolRegistry;
  toolsReady: Promise<void>;
  warmUp: () => void;
  permissions: PermissionGate;
  toolEnv: ToolEnvironment;
  shared: () => SharedToolContext;
  newUuid: () => string;
}): ShellRun {
  return async (command, signal) => {
    d.warmUp();
    await d.toolsReady;
    const bash = d.tools.get('Bash');
    if (!bash) return { ok: false, message: 'the Bash tool is not available in this session' };
    const parsed = bash.inputSchema.safeParse({ command });
    if (!parsed.success) return { ok: false, message: 'not a valid Bash command' };
    const input = parsed.data as Record<string, unknown>;
    const toolUseId = `slash_${d.newUuid()}`;
    const shared = d.shared();
    // The same decision a model's Bash call gets (rules, mode, hooks of the host, the host's prompt): a
    // command file cannot grant itself anything.
    const verdict = await d.permissions.check({ tool: bash, input, toolUseId, hook: undefined, shared }, signal);
    if (verdict.behavior !== 'allow') return { ok: false, message: verdict.message };
    // A host's rewrite is held to the schema, as a model call's is (the deny rules already held for it).
    let run = input;
    if (verdict.rewrite) {
      const r = bash.inputSchema.safeParse(verdict.rewrite.input);
      if (!r.success) return { ok: false, message: 'the permission handler returned an updatedInput that is not a valid Bash command' };
      run = r.data as Record<string, unknown>;
    }
    const out = await bash.call(run, {
      toolUseId,
      shared,
      env: d.toolEnv,
      signal,
      progress: () => undefined,
      approval: verdict.approval,
      ...(verdict.pinnedRealPath !== undefined ? { pinnedRealPath: verdict.pinnedRealPath } : {}),
    });
    const text = typeof out.content === 'string' ? out.content : out.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    return out.isError ? { ok: false, message: text.slice(0, 500) } : { ok: true, output: text };
  };
}

function tokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/** The `/context` answer: a markdown table like Claude Code's, from the same estimate get_context_usage gives. */
export function contextMarkdown(u: GetContextUsageResponse): string {
  const rows = u.categories.map((c) => `| ${c.name} | ${tokens(c.tokens)} | ${((c.tokens / u.maxTokens) * 100).toFixed(1)}% |`);
  return [
    '## Context Usage',
    '',
    `**Model:** ${u.model}  `,
    `**Tokens:** ${tokens(u.totalTokens)} / ${tokens(u.maxTokens)} (${u.percentage}%)`,
    '',
    '### Estimated usage by category',
    '',
    '| Category | Tokens | Percentage |',
    '|----------|--------|------------|',
    ...rows,
    '',
  ].join('\n');
}

/** The project setup from the session's parts (kept out of app.ts, which is at its size limit). */
export function createProject(x: {
  opts: CliOptions;
  io: AppIO;
  configDir: string;
  tools: ToolRegistry;
  toolsReady: Promise<void>;
  warmUp: () => void;
  permissions: PermissionLayer;
  toolEnv: ToolEnvironment;
  session: Session;
  projector: Projector;
  mcp: { status(): Array<{ name: string; status: string }> };
  startedAt: number;
  contextSnapshot: () => Promise<ContextSnapshot>;
  hookRunner: HookRunner;
  models: ModelNames;
}): ProjectSetup {
  const { session } = x;
  return setUpProject({
    cwd: x.io.cwd,
    configDir: x.configDir,
    settingSources: x.opts.settingSources ?? ['user', 'project', 'local'],
    pluginDirs: x.opts.pluginDirs,
    agentsJson: x.opts.agentsJson,
    skillToolAllowed: skillToolAllowed(x.opts),
    tools: x.tools,
    logger: x.io.logger,
    emit: (ev) => x.projector.emit(ev),
    cwdNow: () => session.shared.current.cwd,
    // A command file is not the model asking: the host's allow rules do not widen what its `@file` reads.
    readAccess: (path) => x.permissions.readAccess(path, session.shared.current, { allowRules: false }),
    // Plugin hooks never grant: a plugin folder may be part of the repository.
    addHooks: (hooks) => x.hookRunner.addCommands(hooks.map((h) => ({ kind: 'command' as const, ...h, grants: false }))),
    runShell: commandShellRunner({ tools: x.tools, toolsReady: x.toolsReady, warmUp: x.warmUp, permissions: x.permissions, toolEnv: x.toolEnv, shared: () => session.shared.current, newUuid }),
    resolveModel: (name) => x.models.forTask(name, (n) => x.io.logger.warn({ model: n, keeping: session.settings.model }, 'command model not in availableModels; the turn keeps the session model')),
    builtinDeps: {
      newUuid,
      contextMarkdown: async () => contextMarkdown(estimateContextUsage(await x.contextSnapshot())),
      costSummary: () => ({ totalCostUsd: session.ledger.totalCostUsd, modelUsage: session.ledger.modelUsage(), wallMs: Date.now() - x.startedAt }),
      currentModel: () => session.settings.model,
      setModel: (m) => {
        const r = x.models.choose(m, session.settings.model);
        if (r.ok) session.setModel(r.choice);
        return r;
      },
      mcpStatus: () => x.mcp.status(),
    },
  });
}

/** What the next model request would carry (get_context_usage, /context). */
export async function snapshotOf(x: { warmUp: () => void; toolsReady: Promise<void>; session: Session; tools: ToolRegistry }): Promise<ContextSnapshot> {
  // The tool definitions are part of the context: load them now if no turn has yet.
  x.warmUp();
  await x.toolsReady;
  const { cwd, additionalDirectories } = x.session.shared.current;
  const { model, systemPrompt } = x.session.settings;
  const date = new Date().toISOString().slice(0, 10);
  return {
    model,
    system: buildSystemBlocks(systemPrompt, { cwd, platform: process.platform, date, model, additionalDirectories }),
    tools: x.tools.definitions(),
    messages: x.session.history,
  };
}
