// The composition root: builds the object graph from options, runs it, and owns the process edge
// (stdin EOF, signals, host gone). Returns the exit code; main.ts does the actual exit.
import { appendFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import type { InitializeRequest, InboundUserFrame, OutboundFrame } from '../../protocol/src/index.js';
import { ControlClient } from '../control/outbound.js';
import { createControlHandlers } from '../control/handlers.js';
import { buildInitializeResponse } from '../control/initialize.js';
import { type InitInfo, Projector } from '../control/projector.js';
import { Router } from '../control/router.js';
import type { FrameOut } from '../control/frame-out.js';
import { passThroughHooks } from '../executor/pipeline.js';
import { DEFAULT_PROGRESS } from '../executor/progress.js';
import type { Logger } from '../log/logger.js';
import { AnthropicModelClient, preloadAnthropicSdk } from '../model/anthropic.js';
import { ScenarioEngine } from '../model/scripted/engine.js';
import { ScriptedModelClient } from '../model/scripted/client.js';
import { loadScenario } from '../model/scripted/load.js';
import type { ModelClient, UserBlock } from '../model/types.js';
import { createPermissionLayer } from '../permissions/layer.js';
import { type QueuedInput, type SessionSettings, noTurnHooks, nullRecorder } from '../session/config.js';
import { DEFAULT_RETRY } from '../session/retry.js';
import { Session } from '../session/session.js';
import type { SystemPromptSpec } from '../session/system-prompt.js';
import { builtinTools } from '../tools/builtin/index.js';
import { ProcessGroupTracker, createToolEnvironment } from '../tools/environment.js';
import { ToolRegistry, selectTools } from '../tools/registry.js';
import { FrameWriter } from '../transport/frame-writer.js';
import { readLines } from '../transport/line-reader.js';
import { AbortReason } from '../util/abort.js';
import { newUuid } from '../util/ids.js';
import { AGENTD_VERSION } from '../version.js';
import { EXIT } from './exit-codes.js';
import { type CliOptions, StartupError } from './options.js';

export const DEFAULT_MODEL = 'claude-opus-5-5';
const OUTBOUND_LINE_CAP = 1024 * 1024;

export interface AppIO {
  stdin: Readable;
  stdout: Writable;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  logger: Logger;
}

export interface RunningApp {
  /** Resolves with the exit code when the daemon is done. */
  exit: Promise<number>;
  /** Signal or host loss: abort, kill tool process groups, flush, resolve `exit` with `code`. */
  shutdown(code: number, reason: AbortReason): void;
}

function envInt(env: AppIO['env'], ...names: string[]): number | undefined {
  for (const n of names) {
    const v = env[n];
    if (v !== undefined && /^\d+$/.test(v)) return Number(v);
  }
  return undefined;
}

function buildModel(opts: CliOptions, io: AppIO, sessionId: string): ModelClient {
  if (opts.modelProvider === 'scripted') {
    const loaded = loadScenario(opts.scenario);
    if (!loaded.ok) throw new StartupError('scenario_invalid', loaded.message);
    const engine = new ScenarioEngine(loaded.scenario, { cwd: io.cwd });
    const recordPath = opts.scenarioRecord;
    return new ScriptedModelClient(engine, recordPath ? { record: (req) => appendFileSync(recordPath, `${JSON.stringify(req)}\n`) } : {});
  }
  return new AnthropicModelClient({
    apiKey: io.env['ANTHROPIC_API_KEY'] || undefined,
    authToken: io.env['ANTHROPIC_AUTH_TOKEN'] || undefined,
    baseURL: io.env['ANTHROPIC_BASE_URL'] || undefined,
    headers: {
      'x-agentd-session-id': sessionId,
      'user-agent': `agentd/${AGENTD_VERSION}${io.env['CLAUDE_AGENT_SDK_CLIENT_APP'] ? ` ${io.env['CLAUDE_AGENT_SDK_CLIENT_APP']}` : ''}`,
    },
    timeoutMs: envInt(io.env, 'API_TIMEOUT_MS') ?? 600_000,
  });
}

function systemPromptFrom(opts: CliOptions): SystemPromptSpec {
  const append = opts.appendSystemPrompt;
  if (opts.systemPrompt !== undefined) return { kind: 'custom', parts: [opts.systemPrompt], ...(append ? { append } : {}) };
  return { kind: 'preset', ...(append ? { append } : {}) };
}

function toQueued(frame: InboundUserFrame): QueuedInput {
  return {
    uuid: frame.uuid ?? newUuid(),
    // Inbound blocks were validated for their `type`; the model receives them as the host sent them.
    content: frame.message.content as string | UserBlock[],
    shouldQuery: frame.shouldQuery !== false,
    isSynthetic: frame.isSynthetic === true,
  };
}

export function startApp(opts: CliOptions, io: AppIO): RunningApp {
  const logger = io.logger;
  const sessionId = opts.sessionId ?? newUuid();
  const model = buildModel(opts, io, sessionId);
  const defaultModel = opts.model ?? DEFAULT_MODEL;
  const tracker = new ProcessGroupTracker();
  const toolEnv = createToolEnvironment({ env: io.env, logger, tracker });
  const tools = new ToolRegistry(
    selectTools(builtinTools(), {
      base: opts.tools,
      removed: opts.disallowedTools.filter((r) => !r.includes('(')),
    }),
  );

  let resolveExit!: (code: number) => void;
  const exit = new Promise<number>((r) => {
    resolveExit = r;
  });
  let exiting = false;

  const printMode = opts.print || opts.inputFormat === 'text';
  const writer = new FrameWriter(io.stdout, {
    maxLineBytes: OUTBOUND_LINE_CAP,
    highWaterMark: 1024 * 1024,
    onOversize: (i) => logger.warn(i, 'outbound frame over the line cap was shortened'),
    onClosed: (err) => {
      if (exiting) return;
      logger.warn({ err: err?.message }, 'stdout closed: the host is gone');
      app.shutdown(EXIT.hostGone, new AbortReason('host_gone'));
    },
  });
  let lastResult: OutboundFrame | undefined;
  const out: FrameOut = {
    write: (f) => {
      if (f.type === 'result') lastResult = f;
      if (printMode && opts.outputFormat !== 'stream-json') return undefined;
      return writer.write(f);
    },
  };

  const settings: SessionSettings = {
    model: defaultModel,
    fallbackModel: opts.fallbackModel,
    permissionMode: opts.permissionMode ?? 'default',
    maxThinkingTokens: opts.maxThinkingTokens,
    thinking: opts.thinking,
    maxTurns: opts.maxTurns,
    maxBudgetUsd: opts.maxBudgetUsd,
    maxOutputTokens: envInt(io.env, 'CLAUDE_CODE_MAX_OUTPUT_TOKENS'),
    systemPrompt: systemPromptFrom(opts),
    jsonSchema: opts.jsonSchema,
  };
  const client = new ControlClient(out, newUuid);
  const sessionStateMode =
    io.env['CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS'] === '1' ? 'visible' : io.env['CLAUDE_CODE_SDK_READS_SESSION_STATE'] === '1' ? 'host_only' : 'none';
  const apiKeySource = io.env['ANTHROPIC_API_KEY'] ? 'ANTHROPIC_API_KEY' : 'none';
  const projector: Projector = new Projector(out, {
    sessionId,
    includePartialMessages: opts.includePartialMessages,
    sessionState: sessionStateMode,
    agentdVersion: AGENTD_VERSION,
    initInfo: (): InitInfo => ({
      cwd: session.shared.current.cwd,
      model: settings.model,
      permissionMode: settings.permissionMode,
      tools: tools.names(),
      mcpServers: [],
      apiKeySource,
      additionalDirectories: [...session.shared.current.additionalDirectories],
    }),
    newUuid,
    now: Date.now,
  });
  const permissions = createPermissionLayer({ settings, options: opts, client, logger });
  const session: Session = new Session(
    {
      model,
      sink: projector,
      tools,
      hooks: passThroughHooks,
      turnHooks: noTurnHooks,
      permissions,
      toolEnv,
      recorder: nullRecorder,
      logger,
      now: Date.now,
      newUuid,
      random: Math.random,
      retry: DEFAULT_RETRY,
      maxToolConcurrency: envInt(io.env, 'AGENTD_MAX_TOOL_USE_CONCURRENCY', 'CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY') || 10,
      progress: DEFAULT_PROGRESS,
      initialShared: { cwd: io.cwd, additionalDirectories: opts.addDirs },
    },
    {
      sessionId,
      cwd: io.cwd,
      additionalDirectories: opts.addDirs,
      emitStreamEvents: opts.includePartialMessages,
      replayUserMessages: opts.replayUserMessages,
      betas: opts.betas,
      history: [],
    },
    settings,
  );

  let hooksApplied = false;
  const applyInitialize = (req: InitializeRequest): Record<string, unknown> => {
    if (req.systemPrompt !== undefined && req.systemPrompt !== null) {
      const parts = Array.isArray(req.systemPrompt) ? req.systemPrompt : [req.systemPrompt];
      settings.systemPrompt = { kind: 'custom', parts, ...(settings.systemPrompt.append ? { append: settings.systemPrompt.append } : {}) };
    }
    if (req.appendSystemPrompt) settings.systemPrompt = { ...settings.systemPrompt, append: req.appendSystemPrompt };
    if (req.jsonSchema) settings.jsonSchema = req.jsonSchema;
    hooksApplied = req.hooks !== undefined && req.hooks !== null && Object.keys(req.hooks).length > 0;
    if (req.sdkMcpServers?.length) logger.warn({ servers: req.sdkMcpServers }, 'SDK MCP servers are not supported yet; they are ignored');
    return buildInitializeResponse({
      defaultModel,
      currentModel: settings.model,
      permissionMode: settings.permissionMode,
      apiKeySource,
      hooksApplied,
      agentdVersion: AGENTD_VERSION,
      busy: session.busy,
    }) as unknown as Record<string, unknown>;
  };

  const router = new Router({
    out,
    projector,
    client,
    handlers: createControlHandlers({
      session,
      initialize: applyInitialize,
      canBypass: opts.allowDangerouslySkipPermissions,
      defaultModel,
      onPermissionMode: (m) => permissions.setMode(m),
      mcpStatus: () => [],
    }),
    onUser: (f) => session.submit(toQueued(f)),
    logger,
  });

  const finish = async (code: number): Promise<void> => {
    if (exiting) return;
    exiting = true;
    if (printMode && opts.outputFormat !== 'stream-json' && lastResult) {
      const line = opts.outputFormat === 'json' ? JSON.stringify(lastResult) : printText(lastResult);
      io.stdout.write(`${line}\n`);
    }
    await writer.drain();
    resolveExit(code);
  };

  const app: RunningApp = {
    exit,
    shutdown(code, reason) {
      if (exiting) return;
      client.closeAll(reason.kind);
      session.abortAll(reason);
      void (async () => {
        await Promise.race([Promise.all([session.done(), tracker.killAll(2000)]), new Promise((r) => setTimeout(r, 2500))]);
        await finish(code);
      })();
    },
  };

  session.start();
  // Load the real SDK in the background once start-up work is done, so the first model call does not wait.
  if (opts.modelProvider === 'anthropic') setImmediate(preloadAnthropicSdk);

  void (async () => {
    try {
      if (printMode) {
        const prompt = opts.prompt ?? (await readAll(io.stdin));
        session.submit({ uuid: newUuid(), content: prompt, shouldQuery: true, isSynthetic: false });
      } else {
        for await (const ev of readLines(io.stdin, { maxLineBytes: opts.maxLineBytes })) {
          if (exiting) break;
          await router.handle(ev);
        }
      }
    } catch (err) {
      logger.error({ err }, 'stdin failed');
    }
    if (exiting) return;
    // stdin EOF: requests to the host can no longer be answered (they resolve as denied); queued work finishes.
    client.closeAll('stdin closed');
    session.endOfInput();
    await session.done();
    const failed = printMode && lastResult?.type === 'result' && lastResult.is_error;
    await finish(failed ? EXIT.turnError : EXIT.ok);
  })();

  return app;
}

function printText(r: OutboundFrame): string {
  if (r.type !== 'result') return '';
  if (r.subtype === 'success') return r.result;
  return `Error (${r.subtype}): ${r.errors.join('; ')}`;
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8').trim();
}
