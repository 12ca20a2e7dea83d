// The composition root: builds the object graph from options, runs it, and owns the process edge
// (stdin EOF, signals, host gone). Returns the exit code; main.ts does the actual exit.
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { InitializeRequest, InitializeResponse, OutboundFrame } from '../../protocol/src/index.js';
import { ControlClient } from '../control/outbound.js';
import { createControlHandlers } from '../control/handlers.js';
import { buildInitializeResponse } from '../control/initialize.js';
import { type InitInfo, Projector } from '../control/projector.js';
import { Router } from '../control/router.js';
import { modelSessionTitle } from '../control/session-title.js';
import type { FrameOut } from '../control/frame-out.js';
import { DEFAULT_PROGRESS } from '../executor/progress.js';
import type { Logger } from '../log/logger.js';
import { preloadAnthropicSdk } from '../model/anthropic.js';
import { createHookCallbackPort } from '../control/hook-callbacks.js';
import { createHostPrompter } from '../control/permission-prompter.js';
import { HookRunner } from '../hooks/runner.js';
import { type HookContext, createLifecycleHooks, createPermissionRequestHook, createToolHooks, createTurnHooks } from '../hooks/session-hooks.js';
import { createPermissionLayer } from '../permissions/layer.js';
import { discoverGitDir, gitHooksDirs } from '../permissions/command-paths.js';
import { shellAnalyzer } from './shell-analyzer.js';
import { RuleSet } from '../permissions/rules.js';
import { childEnvironment, secretValues } from '../tools/environment.js';
import { createRedactor } from '../util/secrets.js';
import { persistUpdate, settingsPaths, trustStorePath } from './settings.js';
import { configFrom, startupWarnings } from './app-config.js';
import type { SessionSettings } from '../session/config.js';
import { Session } from '../session/session.js';
import { emptyTurnUsage } from '../session/usage.js';
import { FrameWriter } from '../transport/frame-writer.js';
import { AbortReason } from '../util/abort.js';
import { newUuid } from '../util/ids.js';
import { createTurnEndCollector } from './memory.js';
import { watchStdoutPeer } from './stdio.js';
import { type OpenedSession, SessionLoadError, claudeConfigRoot, entrypointFrom, openSession } from '../store/index.js';
import { AGENTD_VERSION } from '../version.js';
import { EXIT } from './exit-codes.js';
import { transcriptTestFault } from './fatal.js';
import { type CliOptions, StartupError } from './options.js';
import { createStructuredOutputTool } from '../tools/builtin/structured-output.js';
import { setUpTools } from './app-tools.js';
import { reportedSandboxFailure } from './sandbox-setup.js';
import { applyMainAgent, createSessionTasks, installAgentTool } from './app-agents.js';
import { choosePrompter } from './app-prompter.js';
import { setUpModel } from './app-model.js';
import { loadDeviceId } from './device-id.js';
import { retryPolicy, sessionCompaction, systemPromptFrom, toQueued, transcriptNotices } from './app-support.js';
import { AppLifecycle } from './app-lifecycle.js';
import { setupMcp } from './mcp-setup.js';
import { contextSnapshotOf, setUpProject, withMentions } from './project-setup.js';
import { createMcpPromptToolPrompter } from '../mcp/prompt-tool.js';
import type { ContextSnapshot } from '../control/context-usage.js';
import { createProject, projectInitInfo } from './app-commands-support.js';
import { modelRows } from '../model/model-rows.js';
import { fallbackModelOf } from './app-model.js';

export { DEFAULT_MODEL } from '../config/config.js';
const OUTBOUND_LINE_CAP = 1024 * 1024;
export interface AppIO {
  stdin: Readable;
  stdout: Writable;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  logger: Logger;
  fatal: (err: unknown, origin: string) => void; // an error no handler can deal with (cli/fatal.ts)
}

export interface RunningApp {
  exit: Promise<number>; // resolves with the exit code when the daemon is done
  /** Signal or host loss: abort, kill tool process groups, flush, resolve `exit` with `code`. */
  shutdown(code: number, reason: AbortReason): void;
  /** Last resort at process exit (any path), synchronous: SIGKILL every tool still alive, remove the spill folder. */
  exitNow(): void;
  reportInternal(message: string): Promise<void>; // stop reading input, write internal_error last, flush
}

export function startApp(opts: CliOptions, hostIo: AppIO): RunningApp {
  const startedAt = Date.now();
  const logger = hostIo.logger;
  // Flags, environment and settings files, resolved once (src/config). From here on the environment is the
  // inherited one plus the settings `env`: what tools, hooks and MCP servers start from.
  const config = configFrom(opts, hostIo, logger);
  const io: AppIO = { ...hostIo, env: config.childEnvSource };
  // agentd's credentials never leave in a transcript line or a frame (util/secrets.ts; free when there are none).
  const redact = createRedactor(secretValues(io.env));
  let opened: OpenedSession;
  // Transcript troubles and a resume's relinks reach the host through the projector, once it exists.
  const notices = transcriptNotices((ev) => void projector.emit(ev));
  try {
    opened = openSession({
      root: claudeConfigRoot(io.env),
      cwd: io.cwd,
      env: io.env,
      sessionId: opts.sessionId,
      resume: opts.resume,
      continue: opts.continueSession,
      fork: opts.forkSession,
      resumeAt: opts.resumeSessionAt,
      persist: !opts.noSessionPersistence,
      now: Date.now,
      newUuid,
      logger,
      // Late-bound: only read when the transcript is flushed.
      usage: () => session.ledger.modelUsage(),
      onTrouble: notices.onTrouble,
      ...transcriptTestFault(config.env.testFault),
      redact,
    });
  } catch (e) {
    if (e instanceof SessionLoadError) throw new StartupError(`session_${e.code}`, e.message);
    throw e;
  }
  const sessionId = opened.sessionId;
  const resumed = opened.history.length > 0;
  const { model, account, apiKeySource, profile } = setUpModel(opts, io, config, sessionId);
  const modelNames = config.model.names;
  const configDir = config.configDir;
  const rules = new RuleSet();
  rules.add(config.permissions.rules);
  const addDirs = [...config.permissions.additionalDirectories];
  const startMode = config.permissions.startMode;
  const { tools, toolEnv, tracker, toolsReady, loadTools, background, childEnvSource, readOnlySandbox, sandboxSetup, spill } = setUpTools(opts, io, config, { block: config.settings.sandbox, allowRules: rules.byBehavior('allow') }, { model, recordUsage: (m, u) => void session.ledger.record(m, u, emptyTurnUsage()), mainModel: () => settings.model });
  // MCP servers: configured now, connected in the background once `initialize` is answered (src/mcp).
  const mcpSetup = setupMcp({ opts, io, env: config.env, tools, rules, tracker, logger, oneShot: () => printMode, client: () => client, disabledProjectServers: config.settings.disabledMcpjsonServers, config, projectApproval: config.settings.projectMcpApproval, configDir: config.configDir });
  const mcp = mcpSetup.hub;

  // The process edge (input loop, end at EOF, shutdown): created first, so the frame writer can ask it to stop.
  const edge = new AppLifecycle();

  // One-shot mode reads its prompt as text (argument or stdin). `-p` does not change the input format: with
  // `--input-format stream-json` stdin carries NDJSON frames (initialize, user messages) with or without it, as
  // for Claude Code, which also ignores a prompt argument then.
  const printMode = opts.inputFormat === 'text';
  if (!printMode && opts.prompt !== undefined) logger.warn({}, 'prompt argument ignored: with --input-format stream-json the prompt comes from stdin frames');
  const writer = new FrameWriter(io.stdout, {
    maxLineBytes: OUTBOUND_LINE_CAP,
    redact,
    highWaterMark: 1024 * 1024,
    onOversize: (i) => logger.warn(i, 'outbound frame over the line cap was shortened'),
    onClosed: (err) => {
      if (edge.exiting) return;
      logger.warn({ err: err?.message }, 'stdout closed: the host is gone');
      edge.shutdown(EXIT.hostGone, new AbortReason('host_gone'));
    },
  });
  // A Node host's stdout socket tells at once when the host is gone, even during a silent tool: confirm with a
  // keep_alive frame (ignored by every receiver), whose failed write (EPIPE) shuts down through onClosed.
  watchStdoutPeer(io.stdout, () => {
    if (!edge.exiting) void writer.write({ type: 'keep_alive' });
  });
  let lastResult: OutboundFrame | undefined;
  const collector = createTurnEndCollector({ onCollect: (r) => logger.debug(r, 'turn-end garbage collection') });
  const out: FrameOut = {
    write: (f) => {
      if (f.type === 'result') {
        lastResult = f;
        collector.turnEnded();
      }
      if (printMode && opts.outputFormat !== 'stream-json') return undefined;
      return writer.write(f);
    },
    writeLine: (line) => {
      if (printMode && opts.outputFormat !== 'stream-json') return undefined;
      return writer.writeLine(line);
    },
  };

  const settings: SessionSettings = {
    model: config.model.initial.model,
    planModel: config.model.initial.planModel,
    fallbackModel: fallbackModelOf(opts.fallbackModel, modelNames, logger),
    permissionMode: startMode,
    request: config.request,
    maxTurns: opts.maxTurns,
    maxBudgetUsd: opts.maxBudgetUsd,
    systemPrompt: systemPromptFrom(opts),
    jsonSchema: opts.jsonSchema,
  };
  const client = new ControlClient(out, newUuid);
  const sessionStateMode = config.env.sessionState;
  const projector: Projector = new Projector(out, {
    sessionId,
    includePartialMessages: opts.includePartialMessages,
    includeHookEvents: opts.includeHookEvents,
    usageFrames: opts.usageFrames,
    sessionState: sessionStateMode,
    agentdVersion: AGENTD_VERSION,
    initInfo: (): InitInfo => ({
      cwd: session.shared.current.cwd,
      model: settings.model,
      permissionMode: settings.permissionMode,
      tools: tools.names(),
      mcpServers: mcp.initList(),
      apiKeySource,
      additionalDirectories: [...session.shared.current.additionalDirectories],
      outputStyle: project.outputStyle,
      ...projectInitInfo(cmds),
    }),
    newUuid,
    now: Date.now,
  });
  notices.ready();
  const { project, ...projectSetup } = setUpProject({ cwd: io.cwd, configDir, sources: opts.settingSources ?? ['user', 'project', 'local'], outputStyle: config.settings.outputStyle, additionalDirectories: () => session.shared.current.additionalDirectories, readAccess: (path, importer) => permissions.readAccess(path, session.shared.current, { allowRules: importer === 'user' }) /* late-bound */, logger, emit: (ev) => void projector.emit(ev) });
  const hookRunner = new HookRunner(createHookCallbackPort(client), childEnvironment(childEnvSource), logger, {
    started: (hookId, hookName, hookEvent) => void projector.emit({ type: 'hook_started', hookId, hookName, hookEvent }),
    response: (hookId, hookName, hookEvent, r) => void projector.emit({ type: 'hook_response', hookId, hookName, hookEvent, ...r }),
  }, io.cwd);
  hookRunner.addCommands(config.settings.commandHooks.map((h) => ({ kind: 'command' as const, event: h.event, matcher: h.matcher, command: h.command, timeoutSec: h.timeoutSec, source: h.source, grants: h.grants, ...(h.onFailure ? { onFailure: h.onFailure } : {}) })));
  const hookCtx: HookContext = {
    sessionId,
    transcriptPath: () => opened.transcriptPath,
    cwd: () => session.shared.current.cwd,
    permissionMode: () => settings.permissionMode,
  };
  const lifecycle = createLifecycleHooks(hookRunner, hookCtx);
  const paths = settingsPaths(configDir, io.cwd);
  const trustedGitDir = discoverGitDir(io.cwd);
  const permissions = createPermissionLayer({
    rules,
    getMode: () => settings.permissionMode,
    mcpModeOverride: (server) => mcp.modeOverride(server),
    mcpToolPolicy: (server, toolName) => mcp.toolPolicy(server, toolName),
    analyzer: shellAnalyzer,
    readOnlySandbox,
    ...(sandboxSetup.autoAllow ? { sandboxAutoAllow: sandboxSetup.autoAllow } : {}),
    prompter: choosePrompter(config.permissions.denyInsteadOfPrompting ? { ...opts, permissionPrompts: 'none' } : opts, logger, {
      mcpTool: (toolName) =>
        createMcpPromptToolPrompter({ toolName, tools, ready: () => toolsReady.then(() => mcp.settled(mcpSetup.timeoutMs)), env: toolEnv, cwd: () => session.shared.current.cwd }),
      host: () =>
        createHostPrompter({
          client,
          timeoutMs: opts.permissionPromptTimeoutMs,
          onPending: (n) => void projector.emit({ type: 'state', state: n > 0 ? 'requires_action' : 'running' }),
          onAsk: (toolName) => lifecycle.notification(`agentd needs your permission to use ${toolName}`, 'permission_prompt'),
        }),
    }),
    permissionRequestHook: createPermissionRequestHook(hookRunner, hookCtx),
    // Rule paths anchor to the project, whatever directory a shell `cd` moves to; git may run unasked only in
    // the repository the project had when the session started.
    projectDir: io.cwd,
    trustedGitDir,
    hooksDirs: gitHooksDirs(trustedGitDir, io.cwd),
    updates: {
      rules,
      setMode: (m) => {
        const by = config.permissions.disabledModes.get(m);
        if (by !== undefined) logger.warn({ mode: m, file: by }, 'permission update to a disabled mode ignored');
        else session.setPermissionMode(m);
      },
      addDirectories: (dirs) => {
        const cur = session.shared.current;
        session.shared.current = { ...cur, additionalDirectories: [...new Set([...cur.additionalDirectories, ...dirs.map((d) => resolve(cur.cwd, d))])] };
      },
      removeDirectories: (dirs) => {
        const cur = session.shared.current;
        const drop = new Set(dirs.map((d) => resolve(cur.cwd, d)));
        session.shared.current = { ...cur, additionalDirectories: cur.additionalDirectories.filter((d) => !drop.has(d)) };
      },
      persist: async (dest, u) => persistUpdate(paths[dest], u, dest === 'userSettings' ? undefined : trustStorePath(configDir)),
      baseDirFor: (dest) => (dest === 'userSettings' ? config.home : io.cwd),
      allowRulesLocked: config.permissions.managedRulesOnly ? 'the managed policy allows only its own permission rules (allowManagedPermissionRulesOnly)' : undefined,
    },
    logger,
  });
  const mcpStarted = toolsReady.then(() => (mcpSetup.start(), mcpSetup.attachHost()));
  const turnHooks = createTurnHooks(hookRunner, hookCtx);
  const session: Session = new Session(
    {
      model,
      sink: projector,
      tools,
      hooks: project.withNestedMemory(createToolHooks(hookRunner, hookCtx)),
      promptContext: project,
      turnHooks,
      compaction: sessionCompaction(io.env, turnHooks, () => opened.transcriptPath),
      permissions,
      toolEnv,
      recorder: opened.recorder,
      sidechainRecorder: (agentId) => opened.openSidechain(agentId),
      logger,
      now: Date.now,
      newUuid,
      random: Math.random,
      retry: retryPolicy(config.env),
      maxToolConcurrency: config.env.maxToolConcurrency || 10,
      progress: DEFAULT_PROGRESS,
      initialShared: { cwd: io.cwd, additionalDirectories: addDirs },
      entrypoint: entrypointFrom(io.env),
      // The first turn waits for the tools, and for pending MCP servers up to MCP_TIMEOUT: counted when it starts,
      // so the SDK servers initialize declared (after start-up) are waited for too.
      ready: () => mcpStarted.then(() => mcp.settled(mcpSetup.timeoutMs)),
    },
    {
      sessionId,
      cwd: io.cwd,
      additionalDirectories: addDirs,
      emitStreamEvents: opts.includePartialMessages,
      replayUserMessages: opts.replayUserMessages,
      betas: opts.betas,
      profile,
      deviceId: () => loadDeviceId(configDir, logger),
      history: opened.history,
      startSource: resumed ? 'resume' : 'startup',
      provider: modelNames.env.provider,
    },
    settings,
  );

  session.ledger.restore(opened.restoredModelUsage);
  const tasks = createSessionTasks(session, newUuid);
  const cmds = createProject({ opts, io, configDir, tools, toolsReady, warmUp: () => warmUp(), permissions, toolEnv, session, projector, mcp, startedAt, contextSnapshot: () => contextSnapshot(), hookRunner, models: modelNames });
  if (opened.relinked) notices.relinked(opened.relinked);
  // Skipped settings files and keys, what an untrusted repository carries: after the resume repairs, like writes_lost.
  for (const ev of startupWarnings(config, mcpSetup.withheld, logger)) queueMicrotask(() => void projector.emit(ev));

  let hooksApplied = false;
  const applyInitialize = (req: InitializeRequest): InitializeResponse => {
    if (req.systemPrompt !== undefined && req.systemPrompt !== null) {
      const parts = Array.isArray(req.systemPrompt) ? req.systemPrompt : [req.systemPrompt];
      settings.systemPrompt = { kind: 'custom', parts, ...(settings.systemPrompt.append ? { append: settings.systemPrompt.append } : {}) };
    }
    if (req.appendSystemPrompt) settings.systemPrompt = { ...settings.systemPrompt, append: req.appendSystemPrompt };
    if (req.excludeDynamicSections && settings.systemPrompt.kind === 'preset') settings.systemPrompt = { ...settings.systemPrompt, excludeDynamicSections: true };
    if (req.jsonSchema) {
      settings.jsonSchema = req.jsonSchema;
      tools.add(createStructuredOutputTool(req.jsonSchema));
    }
    hooksApplied = req.hooks !== undefined && req.hooks !== null && Object.keys(req.hooks).length > 0;
    hookRunner.setCallbacks(
      Object.entries(req.hooks ?? {}).flatMap(([event, matchers]) =>
        matchers.map((m) => ({ kind: 'callback' as const, event, matcher: m.matcher ?? undefined, callbackIds: m.hookCallbackIds, timeoutSec: m.timeout ?? undefined, ...(m.onFailure ? { onFailure: m.onFailure } : {}) })),
      ),
    );
    const mcpFields = mcpSetup.fromInitialize(req);
    cmds.fromInitialize(req);
    installAgentTool({ definitions: cmds.agents(), tools, session: () => session, logger, platform: process.platform, now: Date.now, tasks, hooks: turnHooks, transcriptPath: () => opened.transcriptPath, forwardText: req.forwardSubagentText === true, models: modelNames });
    const agentProblem = opts.mainAgent === undefined ? undefined : applyMainAgent({ name: opts.mainAgent, definitions: cmds.agents(), settings, tools, toolsReady, modelGiven: opts.model !== undefined, models: modelNames });
    if (agentProblem) logger.warn({ agent: opts.mainAgent }, agentProblem);
    const reply = buildInitializeResponse({
      models: modelRows(modelNames, settings.model),
      currentModel: settings.model,
      permissionMode: settings.permissionMode,
      account,
      hooksApplied,
      agentdVersion: AGENTD_VERSION,
      busy: session.busy,
      outputStyle: project.outputStyle,
      availableOutputStyles: project.outputStyleNames,
      commands: cmds.commands(),
      agents: cmds.agents().map((a) => ({ name: a.name, description: a.description, ...(a.model !== undefined ? { model: a.model } : {}) })),
    });
    return { ...reply, ...mcpFields, ...(req.plugins?.length ? { plugins_applied: true } : {}) };
  };

  // What the next model request would carry (get_context_usage, /context): the tool definitions and the memory
  // files are part of it, so they are loaded now if no turn has yet.
  const contextSnapshot = async (): Promise<ContextSnapshot> => {
    warmUp();
    await Promise.all([toolsReady, projectSetup.start()]);
    return contextSnapshotOf({ settings, shared: session.shared.current, project, tools: tools.definitions(), messages: session.history, betas: opts.betas, lastCall: projector.lastCallUsage, env: io.env });
  };

  const router = new Router({
    out,
    projector,
    client,
    handlers: createControlHandlers({
      session,
      initialize: applyInitialize,
      bypassRefusal: config.permissions.bypassRefusal,
      disabledModes: config.permissions.disabledModes,
      models: modelNames,
      onPermissionMode: (m) => logger.info({ mode: m }, 'permission mode changed'),
      mcpStatus: () => mcp.status(),
      mcpMessage: (server, message) => mcp.deliver(server, message),
      mcpReconnect: (server) => mcp.reconnect(server),
      mcpToggle: (server, enabled) => mcp.toggle(server, enabled),
      mcpSetServers: (servers) => mcpSetup.setServers(servers),
      mcpModeOverride: (server, mode) => mcp.setModeOverride(server, mode),
      mcpAuth: mcpSetup.auth,
      reloadOutputStyles: () => project.reloadOutputStyles(),
      contextSnapshot,
      reloadSkills: () => cmds.reloadSkills(),
      stopTask: (id) => tasks.stop(id),
      persistTitle: (title) => opened.recorder.recordTitle(title),
      modelTitle: (description) =>
        modelSessionTitle(
          { model, modelId: () => settings.model, recordUsage: (m, u) => void session.ledger.record(m, u, emptyTurnUsage()) },
          description,
          AbortSignal.timeout(30_000),
        ),
    }),
    // A slash command is routed first (its own @file handling); any other prompt gets its @file mentions attached.
    onUser: (f) => {
      const q = cmds.route(toQueued(f));
      session.submit(q.command !== undefined || q.local !== undefined ? q : withMentions(q, f, project, session.shared.current.cwd));
    },
    logger,
  });

  session.start();
  // Everything a turn needs but `initialize` does not (tools, the Messages SDK) loads once the first line has
  // been answered, or after a short idle moment, whichever comes first.
  let warmedUp = false;
  const warmUp = (): void => {
    if (warmedUp) return;
    warmedUp = true;
    loadTools();
    void projectSetup.start();
    mcpSetup.start();
    if (opts.modelProvider === 'anthropic') preloadAnthropicSdk();
  };
  // The idle moment is counted from the end of the first poll of stdin (setImmediate runs after it): a line the
  // host wrote before agentd started (the SDKs write initialize at once) has been read by then, so a slow or
  // busy machine cannot start the warm-up, which blocks for a few ms, ahead of answering it.
  setImmediate(() => setTimeout(warmUp, 25).unref());

  edge.attach({
    startupGate: () => reportedSandboxFailure(sandboxSetup, io.stdout, opts.outputFormat),
    stdin: io.stdin,
    stdout: io.stdout,
    printMode,
    outputFormat: opts.outputFormat,
    prompt: opts.prompt,
    maxLineBytes: opts.maxLineBytes,
    logger,
    lastResult: () => lastResult,
    handleLine: (ev) => router.handle(ev),
    submitPrompt: (p) => session.submit(cmds.route(p)),
    warmUp,
    closeHostRequests: (why) => client.closeAll(why),
    session,
    stopChildren: () => Promise.all([(mcpSetup.auth.close(), mcp.close()), background().killAll(), tracker.killAll(2000)]),
    killChildrenNow: () => tracker.killAllNow(),
    sessionEnd: (reason, ms) => lifecycle.sessionEnd(reason, ms),
    closeTranscript: () => opened.recorder.close(),
    drainFrames: () => writer.drain(),
    fatal: (err, origin) => io.fatal(err, origin),
  });
  edge.run();
  return {
    exit: edge.exit,
    exitNow: () => (tracker.killAllNow(), spill.remove()),
    shutdown: (code, reason) => edge.shutdown(code, reason),
    reportInternal: (message) => (edge.stopForInternalError(), Promise.resolve(projector.internalError(message)).then(() => writer.drain())),
  };
}
