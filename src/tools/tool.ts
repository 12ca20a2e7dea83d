// The Tool contract. A tool validates and executes; it never decides whether it may run (the executor's
// fixed pipeline does: schema → validateInput → PreToolUse hooks → permission → call → PostToolUse hooks).
import type * as z from 'zod/mini';
import type { Logger } from '../log/logger.js';
import type { ToolResultContent } from '../model/types.js';
import type { FileStateCache } from './file-state.js';
import type { ReadOnlySandbox } from './sandbox/types.js';
import type { CommandSandbox } from './sandbox/runtime.js';
import type { AssistantBlock, ServerToolDefinition } from '../model/types.js';
import type { KeptOutputs } from './shell/kept-outputs.js';

/** Shared context that tools may change through a returned modifier (e.g. Bash's persistent cwd). */
export interface SharedToolContext {
  readonly cwd: string;
  readonly additionalDirectories: readonly string[];
}

export type ContextModifier = (ctx: SharedToolContext) => SharedToolContext;

export interface ToolProgressUpdate {
  kind: 'output' | 'heartbeat';
  /** New output since the previous update (the executor rate-limits and caps what reaches the wire). */
  output?: string;
  totalBytes?: number;
  /** An MCP server's `notifications/progress` numbers (`total` when the server knows it). */
  progress?: number;
  total?: number;
  /**
   * Output too fast to decode piece by piece: the executor reads it from here when it next sends a progress
   * frame, instead of the tool turning every chunk into text that would mostly be dropped.
   */
  live?: LiveOutput;
}

export interface LiveOutput {
  /** The newest output since the previous take, at most `maxChars`; what came before it counts as skipped. */
  take(maxChars: number): { text: string; skippedBytes: number };
}

export interface ToolEnvironment {
  /** Environment for child processes: agentd's credentials removed unless configured otherwise. */
  readonly childEnv: Readonly<Record<string, string>>;
  /** Removes agentd's secret values from text (tool results, before the model, transcript or host see them). */
  readonly redact?: (s: string) => string;
  /** Session-scoped record of which files were read when (read-before-write checks). */
  readonly fileState: FileStateCache;
  /** Where large outputs are spilled (created on demand). */
  readonly spillDir: string;
  /** Kept full outputs and their disk budget (absent in tests that do not need one). */
  readonly keptOutputs?: KeptOutputs;
  /** A Bash command whose output passes this many bytes is stopped (default DEFAULT_MAX_OUTPUT_FILE_BYTES). */
  readonly maxOutputFileBytes?: number;
  readonly logger: Logger;
  /** Registers a child process group so shutdown can kill it; returns the unregister function. */
  trackProcessGroup(pid: number): () => void;
  /** Background shells (Bash run_in_background) live here for the life of the session. */
  readonly background: BackgroundRegistry;
  /** Where Bash runs commands that only the shell analyser approved (see Approval). */
  readonly readOnlySandbox: ReadOnlySandbox;
  /**
   * The command sandbox of the `sandbox` settings, when they turn it on. While it runs, Bash commands run
   * inside it (see sandbox/policy.ts), the read-only ones too (then without write access), and the
   * read-only sandbox above is not used.
   */
  readonly commandSandbox?: CommandSandbox;
  /** The small, fast model a tool asks on the model's behalf (WebFetch answering its prompt); absent in bare test sessions. */
  readonly sideModel?: SideModel;
}

/** One secondary model request made by a tool: a system text and one user message in, the answer's text out. */
export interface SideModel {
  /** The model id the requests go to (for the tool's output). */
  readonly model: string;
  /** The answer's text. */
  ask(req: SideRequest): Promise<string>;
  /** The whole answer: text blocks with their citations, and the blocks of server tools (web search). */
  complete(req: SideRequest & { tools?: ServerToolDefinition[] }): Promise<AssistantBlock[]>;
}

export interface SideRequest {
  system: string;
  prompt: string;
  maxTokens: number;
  signal: AbortSignal;
}

/**
 * Why a call was allowed to run, as the permission layer decided it. `read-only-analysis`: no rule, hook, mode
 * or person approved it; the shell analyser judged the command read-only, so Bash runs it inside the
 * read-only sandbox (a second wall against an analyser mistake). `unchecked`: a session built without a
 * permission layer (tests).
 */
export type Approval =
  | { by: 'read-only-analysis' }
  /** autoAllowBashIfSandboxed: allowed because it runs inside the command sandbox (so it must). */
  | { by: 'sandbox' }
  | { by: 'rule' }
  | { by: 'mode' }
  | { by: 'hook' }
  | { by: 'host' }
  | { by: 'unchecked' };

export interface ToolCallContext {
  readonly toolUseId: string;
  readonly shared: SharedToolContext;
  readonly env: ToolEnvironment;
  /** Aborted when the call must stop (interrupt for `cancel` tools, sibling failure, discarded attempt). */
  readonly signal: AbortSignal;
  progress(update: ToolProgressUpdate): void;
  /**
   * The real path the permission check approved for this call's file (see PermissionSubject), when there was
   * one. A tool that opens the file must verify the opened descriptor resolves to exactly this path
   * (tools/fs-safe.ts), so a symlink swapped in between the check and the open cannot redirect it (TOCTOU).
   */
  readonly pinnedRealPath?: string;
  /** Why this call may run. */
  readonly approval: Approval;
}

export interface ToolOutcome<O = unknown> {
  /** Structured output (tool_use_result on the wire, tool_response for PostToolUse hooks). */
  data: O;
  /** What the model sees. */
  content: ToolResultContent;
  isError?: boolean;
  contextModifier?: ContextModifier;
}

export type ValidationResult = { ok: true } | { ok: false; message: string };

/** What the permission layer needs to know about a call, declared by the tool. */
export type PermissionSubject =
  | { kind: 'read'; path: string }
  | { kind: 'write'; path: string }
  | { kind: 'command'; command: string }
  | { kind: 'fetch'; url: string }
  /** Changes only agentd's own session state (todo list, structured answer): allowed unless a rule says otherwise. */
  | { kind: 'session'; content?: string }
  | { kind: 'none' };

export interface Tool<I = unknown, O = unknown> {
  readonly name: string;
  /** Text for the model. */
  readonly description: string;
  readonly inputSchema: z.ZodMiniType<I>;
  /** JSON Schema sent to the API (generated from inputSchema unless the tool provides its own). */
  readonly inputJsonSchema?: Record<string, unknown>;
  /**
   * Safe to run alongside other safe calls. Throwing or rejecting counts as "not safe". May be async (a shell
   * parser needs to load); the executor waits for the answer before the call can start, in queue order.
   */
  isConcurrencySafe(input: I): boolean | Promise<boolean>;
  isReadOnly(input: I): boolean;
  /** What a user interrupt does to a running call: stop it, or let it finish. */
  readonly interruptBehavior: 'cancel' | 'block';
  /**
   * The tool's own policy, which the generic executor applies: when an exclusive call of this tool fails, the
   * calls queued behind it are cancelled (Bash: a failed command usually invalidates what was planned after it).
   */
  readonly cancelsSiblingsOnError?: boolean;
  /** How a failed call is named in the results of the siblings it cancelled (Bash: its description or command). */
  siblingSummary?(input: I): string;
  validateInput?(input: I, ctx: { shared: SharedToolContext; env: ToolEnvironment }): Promise<ValidationResult> | ValidationResult;
  call(input: I, ctx: ToolCallContext): Promise<ToolOutcome<O>>;
  /** For MCP tools: the server and where its definition came from (`mcp_server` in can_use_tool). */
  readonly mcpServer?: { name: string; source: string };
  permissionSubject?(input: I, shared: SharedToolContext): PermissionSubject;
}

/** A tool whose input type is erased, for registries and the executor. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a tool's input is contravariant: no other type erases every Tool<I> to one registry type.
export type AnyTool = Tool<any, unknown>;

export interface BackgroundShellInfo {
  id: string;
  command: string;
  status: 'running' | 'completed' | 'killed' | 'failed';
  exitCode: number | null;
}

export interface BackgroundRegistry {
  list(): BackgroundShellInfo[];
  killAll(): Promise<void>;
}
