// What a project contributes beyond settings: custom commands, skills, subagent definitions, from the project
// (`<cwd>/.claude`), the user (`~/.claude`, i.e. CLAUDE_CONFIG_DIR) and plugin folders (--plugin-dir,
// initialize.plugins). Project and user folders are read only when settingSources lists them; plugins are
// named explicitly and always read. Nothing here grants a permission: a file may describe tools, never allow them.
import { basename, join, resolve } from 'node:path';
import type { AgentDefinition } from '../agents/types.js';
import { loadAgentDefinitions } from './agents.js';
import { type CustomCommand, loadCommands } from './commands.js';
import { Confinement, type ProjectWarning, type ScanRoot, readText } from './files.js';
import { type Skill, loadSkills } from './skills.js';

export type { AgentDefinition } from '../agents/types.js';
export type { CustomCommand } from './commands.js';
export type { ProjectWarning, ScanRoot } from './files.js';
export { Confinement } from './files.js';
export { type Skill, filterSkills, skillBody } from './skills.js';
export { loadAgentDefinitions } from './agents.js';
export { type PluginCommandHook, loadPluginHooks } from './plugin-hooks.js';

export interface PluginDir {
  path: string;
  /** --plugin-dir-no-mcp / skipMcpDiscovery: the host owns this plugin's MCP servers. */
  skipMcp: boolean;
}

export interface PluginInfo {
  name: string;
  path: string;
}

export interface ProjectScanInput {
  cwd: string;
  /** `~/.claude` or CLAUDE_CONFIG_DIR. */
  configDir: string;
  settingSources: ReadonlyArray<'user' | 'project' | 'local'>;
  plugins: readonly PluginDir[];
}

export interface ProjectCatalog {
  commands: CustomCommand[];
  skills: Skill[];
  plugins: PluginInfo[];
  roots: ScanRoot[];
  warnings: ProjectWarning[];
  /** Where the project's files may lead (files.ts), for the agents read from the same roots. */
  confine: Confinement;
}

/** The plugin's name: `name` in `.claude-plugin/plugin.json`, else its folder's name. */
export function pluginName(dir: string): string {
  const manifest = readText(join(dir, '.claude-plugin', 'plugin.json'));
  if (manifest !== undefined) {
    try {
      const v: unknown = JSON.parse(manifest);
      if (typeof v === 'object' && v !== null && 'name' in v && typeof v.name === 'string' && /^[\w.-]+$/.test(v.name)) return v.name;
    } catch {
      // A broken manifest: the folder name still identifies the plugin.
    }
  }
  return basename(dir);
}

export function scanRoots(input: ProjectScanInput): { roots: ScanRoot[]; plugins: PluginInfo[] } {
  const roots: ScanRoot[] = [];
  const plugins: PluginInfo[] = [];
  for (const p of input.plugins) {
    const dir = resolve(input.cwd, p.path);
    const name = pluginName(dir);
    plugins.push({ name, path: dir });
    roots.push({ dir, source: 'plugin', namespace: name });
  }
  if (input.settingSources.includes('user')) roots.push({ dir: input.configDir, source: 'user', namespace: undefined });
  if (input.settingSources.includes('project')) roots.push({ dir: join(input.cwd, '.claude'), source: 'project', namespace: undefined });
  return { roots, plugins };
}

/** Reads every command and skill (frontmatter only for skills). Synchronous: a few small files, once. */
export function scanProject(input: ProjectScanInput): ProjectCatalog {
  const { roots, plugins } = scanRoots(input);
  const warnings: ProjectWarning[] = [];
  // Project entries come last so that, for equal names, the lookup (last wins) prefers project over user.
  const ordered = [...roots].sort((a, b) => rank(a) - rank(b));
  const confine = new Confinement({ cwd: input.cwd, configDir: input.configDir });
  return { commands: loadCommands(ordered, warnings, confine), skills: loadSkills(ordered, warnings, confine), plugins, roots, warnings, confine };
}

function rank(r: ScanRoot): number {
  return r.source === 'plugin' ? 0 : r.source === 'user' ? 1 : 2;
}

export function loadAgents(
  catalog: Pick<ProjectCatalog, 'roots'> & Partial<Pick<ProjectCatalog, 'confine'>>,
  opts: { flagJson: string | undefined; sdkAgents: Readonly<Record<string, unknown>> | undefined; isKnownTool: (n: string) => boolean },
): { agents: AgentDefinition[]; warnings: ProjectWarning[] } {
  const warnings: ProjectWarning[] = [];
  const agents = loadAgentDefinitions({ roots: catalog.roots, ...opts, ...(catalog.confine ? { confine: catalog.confine } : {}) }, warnings);
  return { agents, warnings };
}
