// The tool side of the composition root: the run tag every child process carries, the process-group tracker,
// the read-only sandbox, the tool environment and the registry whose built-ins load in the background.
import type { AppConfig } from '../config/config.js';
import { createStructuredOutputTool } from '../tools/builtin/structured-output.js';
import { EmptyBackgroundRegistry, ProcessGroupTracker, SpillDir, createToolEnvironment } from '../tools/environment.js';
import { withRunTag } from '../tools/process-groups.js';
import { ToolRegistry, selectTools } from '../tools/registry.js';
import { type ReadOnlySandbox, createReadOnlySandbox, parseReadOnlySandboxPolicy } from '../tools/sandbox/index.js';
import type { BackgroundRegistry, ToolEnvironment } from '../tools/tool.js';
import type { ModelClient, Usage } from '../model/types.js';
import { createSideModel } from './side-model.js';
import { withheldByDeny } from '../permissions/match.js';
import type { PermissionRule } from '../permissions/rules.js';
import { type SandboxSetup, setUpCommandSandbox } from './sandbox-setup.js';
import { newUuid } from '../util/ids.js';
import type { AppIO } from './app.js';
import { type CliOptions, StartupError } from './options.js';

export interface ToolSetup {
  tools: ToolRegistry;
  toolEnv: ToolEnvironment;
  tracker: ProcessGroupTracker;
  /** Resolves once the built-in tools are registered (after loadTools()). */
  toolsReady: Promise<void>;
  loadTools: () => void;
  /** The background-shell registry (an empty one until the tools have loaded). */
  background: () => BackgroundRegistry;
  /** The environment child processes start from: agentd's own, plus this run's tag. */
  childEnvSource: NodeJS.ProcessEnv;
  readOnlySandbox: ReadOnlySandbox;
  /** The command sandbox of the `sandbox` settings, and its start-up gate. */
  sandboxSetup: SandboxSetup;
  /** The session's temporary folder (Bash outputs), removed at exit. */
  spill: SpillDir;
}

export function setUpTools(
  opts: CliOptions,
  io: AppIO,
  config: AppConfig,
  /** The merged `sandbox` settings and the allow rules (WebFetch(domain:…) hosts): the command sandbox (sandbox-setup.ts). */
  sandbox: { block: unknown; allowRules: readonly PermissionRule[] } = { block: undefined, allowRules: [] },
  /** For the small, fast model tools ask (side-model.ts). */
  side?: { model: ModelClient; recordUsage: (model: string, usage: Usage) => void; mainModel: () => string },
): ToolSetup {
  const sideModel = side ? createSideModel(side.model, io.env, side.recordUsage, side.mainModel) : undefined;
  const sandboxSetup = setUpCommandSandbox(sandbox.block, sandbox.allowRules, io.logger, { preferSystem: config.env.ripgrepPreferSystem, path: config.env.path });
  const commandSandbox = sandboxSetup.sandbox;
  const logger = io.logger;
  // Every process agentd starts carries this run's tag in its environment, so the exit can find and kill
  // those that left their process group (setsid) too.
  const runTag = newUuid().replaceAll('-', '');
  const childEnvSource = withRunTag(io.env, runTag);
  const tracker = new ProcessGroupTracker({ runTag });
  // The tool implementations (and execa, tree-sitter, globbing) load in the background: `initialize` needs none
  // of them, and the session waits for them before its first turn.
  let background: BackgroundRegistry = new EmptyBackgroundRegistry();
  // The second wall behind the shell analyser (tools/sandbox): detected on first use, not at start-up.
  const policy = parseReadOnlySandboxPolicy(config.env.readOnlySandbox);
  if (!policy.ok) throw new StartupError('invalid_env_value', `${policy.message}.`);
  const readOnlySandbox = createReadOnlySandbox({ policy: policy.policy, path: config.env.path, home: config.home, hidden: [config.configDir], logger });
  const spill = new SpillDir();
  const toolEnv = createToolEnvironment({ env: childEnvSource, logger, tracker, background: () => background, readOnlySandbox, spillDir: spill, ...(commandSandbox ? { commandSandbox } : {}), ...(sideModel ? { sideModel } : {}) });
  // A whole-tool deny rule from any layer keeps the tool out of every request, as in Claude Code.
  const tools = new ToolRegistry([], { withheld: withheldByDeny(config.permissions.rules) });
  let loadTools!: () => void;
  const toolsReady = new Promise<void>((resolve) => {
    loadTools = () => resolve();
  }).then(() => import('../tools/lazy-entry.js')).then((m) => {
    background = m.createBackgroundRegistry();
    const selected = selectTools(m.builtinTools({ projectDir: io.cwd, preferSystemRipgrep: config.env.ripgrepPreferSystem }), { base: opts.tools });
    // StructuredOutput may already be registered (from --json-schema); the built-ins go in front of it.
    const extra = tools.names().map((n) => tools.get(n)).filter((t): t is NonNullable<typeof t> => t !== undefined);
    for (const n of tools.names()) tools.remove(n);
    for (const t of [...selected, ...extra]) tools.add(t);
    // The shell parser (WASM, several MiB) loads when the first command must be judged, not before.
  });
  if (opts.jsonSchema) tools.add(createStructuredOutputTool(opts.jsonSchema));
  return { tools, toolEnv, tracker, toolsReady, loadTools, background: () => background, childEnvSource, readOnlySandbox, sandboxSetup, spill };
}
