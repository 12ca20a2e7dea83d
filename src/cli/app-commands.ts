// The project side of the composition root: custom commands, skills, plugins and subagent definitions
// (src/project), the slash-command seam (src/commands) and the Skill tool. The scan is lazy and synchronous:
// it runs once, when `initialize` is answered or the first message arrives, whichever is first.
import type { InitializeRequest } from '../../protocol/src/index.js';
import { type BuiltinCommand, builtinCommands } from '../commands/builtins.js';
import type { ShellRun } from '../commands/expand.js';
import { type SlashCommandInfo, listCommands, routeSlashCommand } from '../commands/slash.js';
import type { Logger } from '../log/logger.js';
import type { AgentDefinition } from '../agents/types.js';
import { type PluginCommandHook, type ProjectCatalog, type ProjectWarning, type Skill, filterSkills, loadAgents, loadPluginHooks, scanProject, skillBody } from '../project/index.js';
import type { QueuedInput } from '../session/config.js';
import type { SessionEvent } from '../session/events.js';
import { createSkillTool } from '../tools/builtin/skill.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { BuiltinDeps } from '../commands/builtins.js';

/** Tool names an agent definition may list (agentd's tools, and the ones other parts of agentd add). */
const KNOWN_TOOLS: ReadonlySet<string> = new Set([
  'Bash', 'Glob', 'Grep', 'Read', 'Edit', 'Write', 'NotebookEdit', 'WebFetch', 'TodoWrite', 'TaskStop', 'Skill', 'Agent', 'Task', 'StructuredOutput',
]);

export interface ProjectSetupInput {
  cwd: string;
  configDir: string;
  settingSources: ReadonlyArray<'user' | 'project' | 'local'>;
  pluginDirs: ReadonlyArray<{ path: string; skipMcp: boolean }>;
  agentsJson: string | undefined;
  /** `--disallowedTools Skill` / `--tools` without it: no Skill tool. */
  skillToolAllowed: boolean;
  tools: ToolRegistry;
  logger: Logger;
  emit: (ev: SessionEvent) => void | Promise<void>;
  builtinDeps: Omit<BuiltinDeps, 'reloadSkills'>;
  cwdNow: () => string;
  /** What a Read call of a path would get with nobody asked (the permission engine): `@file` in commands obeys it. */
  readAccess: (path: string) => Promise<'allow' | 'ask' | 'deny'>;
  runShell: ShellRun;
  /** A plugin's command hooks (hooks/hooks.json), registered once per plugin folder. */
  addHooks: (hooks: PluginCommandHook[]) => void;
  /** A command's `model` frontmatter, resolved (SlashDeps.resolveModel). */
  resolveModel: (name: string | undefined) => string | undefined;
}

export interface ProjectSetup {
  /** Reads the request's agents, skills filter and plugins, and scans (once). */
  fromInitialize(req: InitializeRequest): void;
  /** The slash-command seam: every user message passes here before it is queued. */
  route(input: QueuedInput): QueuedInput;
  commands(): SlashCommandInfo[];
  agents(): AgentDefinition[];
  skills(): Skill[];
  plugins(): Array<{ name: string; path: string }>;
  /** Rescans commands and skills, tells the host (commands_changed); the skills as slash commands. */
  reloadSkills(): SlashCommandInfo[];
}

export function setUpProject(x: ProjectSetupInput): ProjectSetup {
  let catalog: ProjectCatalog | undefined;
  let agents: AgentDefinition[] = [];
  let sdkAgents: Readonly<Record<string, unknown>> | undefined;
  let skillFilter: readonly string[] | undefined;
  const extraPlugins: Array<{ path: string; skipMcp: boolean }> = [];
  const hooked = new Set<string>();

  const report = (warnings: readonly ProjectWarning[]): void => {
    for (const w of warnings) x.logger.warn({ file: w.file }, w.message);
    if (warnings.length === 0) return;
    // After the reply that is being written now: the host hears of it, the session starts regardless.
    setImmediate(() => {
      for (const w of warnings) void x.emit({ type: 'file_warning', file: 'project', message: w.message, path: w.file });
    });
  };

  const scan = (): ProjectCatalog => {
    const c = scanProject({ cwd: x.cwd, configDir: x.configDir, settingSources: x.settingSources, plugins: [...x.pluginDirs, ...extraPlugins] });
    const a = loadAgents(c, { flagJson: x.agentsJson, sdkAgents, isKnownTool: (n) => KNOWN_TOOLS.has(n) });
    agents = a.agents;
    const hookWarnings: ProjectWarning[] = [];
    for (const p of c.plugins) {
      if (hooked.has(p.path)) continue;
      hooked.add(p.path);
      const hooks = loadPluginHooks(p, hookWarnings);
      if (hooks.length > 0) x.addHooks(hooks);
    }
    report([...c.warnings, ...a.warnings, ...hookWarnings]);
    return c;
  };

  const visibleSkills = (): Skill[] => filterSkills(ensure().skills, skillFilter);
  let skillToolAdded = false;
  const ensure = (): ProjectCatalog => {
    if (catalog) return catalog;
    catalog = scan();
    addSkillTool();
    return catalog;
  };

  const addSkillTool = (): void => {
    // Already there: adding it again drops the registry's cached definitions, so the listing is fresh.
    const existing = skillToolAdded ? x.tools.get('Skill') : undefined;
    if (existing) x.tools.add(existing);
    if (skillToolAdded || !x.skillToolAllowed) return;
    const offered = visibleSkills().filter((s) => !s.disableModelInvocation);
    if (offered.length === 0) return;
    skillToolAdded = true;
    x.tools.add(
      createSkillTool({
        list: () => visibleSkills().filter((s) => !s.disableModelInvocation),
        load: (name) => {
          const skills = visibleSkills().filter((s) => !s.disableModelInvocation);
          const s = skills.find((k) => k.name === name) ?? skills.find((k) => k.name.endsWith(`:${name}`));
          if (!s) return { ok: false, message: `Unknown skill: ${name}. Available skills: ${skills.map((k) => k.name).join(', ') || 'none'}` };
          const body = skillBody(s);
          return body === undefined ? { ok: false, message: `The skill ${name} could not be read from ${s.file}.` } : { ok: true, dir: s.dir, body };
        },
      }),
    );
  };

  const reload = (): ProjectCatalog => {
    catalog = scan();
    addSkillTool();
    void x.emit({ type: 'commands_changed', commands: listCommands(deps) });
    return catalog;
  };
  const builtins: BuiltinCommand[] = builtinCommands({
    ...x.builtinDeps,
    reloadSkills: () => {
      const c = reload();
      return { commands: c.commands.length, skills: c.skills.length };
    },
  });
  const deps = {
    builtins,
    commands: () => ensure().commands,
    skills: visibleSkills,
    cwd: x.cwdNow,
    readAccess: x.readAccess,
    runShell: x.runShell,
    resolveModel: x.resolveModel,
  };

  return {
    fromInitialize(req) {
      if (req.agents) sdkAgents = req.agents;
      if (req.skills) skillFilter = req.skills;
      for (const p of req.plugins ?? []) extraPlugins.push({ path: p.path, skipMcp: p.skipMcpDiscovery === true });
      catalog = undefined;
      ensure();
    },
    route: (input) => routeSlashCommand(input, deps),
    commands: () => listCommands(deps),
    agents: () => (ensure(), agents),
    skills: visibleSkills,
    plugins: () => ensure().plugins,
    reloadSkills: () => {
      reload();
      return visibleSkills().map((s) => ({ name: s.name, description: s.description, argumentHint: s.argumentHint }));
    },
  };
}
