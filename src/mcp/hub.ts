// The session's MCP servers: their states (pending → connected | failed), their tools in the session's registry,
// and their shutdown. Connections start in the background and never delay `initialize`; the first model request
// waits for pending ones up to a budget (`settled`). The MCP SDK itself is loaded only when a server is
// actually connected (dist/agentd-mcp.js). A stdio server whose process goes away after it connected, or a
// remote server that forgot its session, lost its SSE stream or cannot be reached, is redialled with backoff (pending
// meanwhile), and failed with the reason once the tries are used up.
import type { Logger } from '../log/logger.js';
import type { AnyTool } from '../tools/tool.js';
import { type McpServerSpec, type McpSource, type McpToolPolicy, toolPolicies } from './config.js';
import type { ConnectDeps, ConnectedServer, ResourceAccess, ToolSummary } from './client.js';
import { mcpToolName } from '../util/mcp-names.js';
import { notApproved, publicConfig, sameConnection, withPolicies } from './specs.js';
import type { McpMessagePort } from './port.js';

export type McpServerState = 'pending' | 'connected' | 'failed' | 'needs-auth' | 'disabled';

/** One row of `mcp_status` (the SDK's McpServerStatus). */
export interface McpStatusRow {
  name: string;
  status: McpServerState;
  serverInfo?: { name: string; version: string };
  error?: string;
  config?: Record<string, unknown>;
  scope?: string;
  source: McpSource;
  tools?: ToolSummary[];
}

/** The parts of the tool registry the hub uses. */
export interface ToolSink {
  add(tool: AnyTool): void;
  remove(name: string): void;
  get(name: string): AnyTool | undefined;
}

export interface McpHubDeps extends Omit<ConnectDeps, 'onClosed' | 'registerDeliver' | 'port' | 'elicit'> {
  tools: ToolSink;
  /** Bare deny rules remove tools from what the model sees (as `--disallowedTools Bash` does for built-ins). */
  isRemoved(toolName: string): boolean;
  logger: Logger;
  /** Loads the connection code (the lazy bundle). Injected so tests can count or replace it. */
  load?: () => Promise<McpRuntime>;
  /** Waits before each redial of a dropped stdio or remote server (default 1 s, 2 s, 4 s); `[]` turns redialling off. */
  redialDelaysMs?: readonly number[];
  /** A connection that lived this long before dropping starts again from the first delay (default 60 s). */
  redialStableMs?: number;
}

export const DEFAULT_REDIAL_DELAYS_MS: readonly number[] = [1000, 2000, 4000];
const DEFAULT_REDIAL_STABLE_MS = 60_000;

interface Entry {
  spec: McpServerSpec;
  state: McpServerState;
  error?: string;
  conn?: ConnectedServer;
  toolNames: string[];
  done: Promise<void>;
  deliver?: (message: unknown) => void;
  /** Messages the host sent before the transport existed (none expected; kept rather than dropped). */
  early: unknown[];
  launched: boolean;
  /** Bumped by every connection attempt: callbacks of an older connection are ignored. */
  generation: number;
  /** Added by `mcp_set_servers` (the set it replaces), not by configuration. */
  managed: boolean;
  /** Redials used since the last connection that stayed up (or since the host's own reconnect). */
  redials: number;
  connectedAt: number;
}

export interface McpRuntime {
  connectServer(spec: Exclude<McpServerSpec, { kind: 'invalid' | 'withheld' }>, d: ConnectDeps): Promise<ConnectedServer>;
  resourceTools(servers: { withResources(): Map<string, ResourceAccess> }, maxOutputChars: number): AnyTool[];
}

const loadDefault = (): Promise<McpRuntime> => import('./lazy-entry.js');

export class McpHub {
  private readonly entries = new Map<string, Entry>();
  private port: McpMessagePort | undefined;
  private closed = false;
  private hostless: string | undefined;
  private runtime: McpRuntime | undefined;
  private resourceToolsAdded = false;
  private started = false;
  /** set_mcp_permission_mode_override, by server name: kept for a server that connects later (as Claude Code does). */
  private readonly modeOverrides = new Map<string, 'default' | 'auto'>();
  /** Per-tool policies by full tool name, computed once per server definition. */
  private readonly policies = new WeakMap<McpServerSpec, Map<string, McpToolPolicy>>();

  constructor(private readonly d: McpHubDeps) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * Registers servers (reported as pending at once). External ones connect once `start` was called, SDK ones
   * once `attachHost` was (the host must be ready to answer `mcp_message`). A name already registered keeps its
   * first definition.
   */
  add(specs: readonly McpServerSpec[]): void {
    for (const spec of specs) {
      if (this.entries.has(spec.name)) continue;
      const e: Entry = { spec, state: 'pending', toolNames: [], done: Promise.resolve(), early: [], launched: false, generation: 0, managed: false, redials: 0, connectedAt: 0 };
      this.entries.set(spec.name, e);
      if (spec.kind === 'invalid') this.fail(e, spec.reason);
      else if (spec.kind === 'withheld') Object.assign(e, { state: 'disabled', error: spec.reason }); // listed with why, never started
      else if (spec.kind === 'sdk' && this.hostless) this.fail(e, this.hostless);
    }
    this.launch();
  }

  /** Background work may begin: external servers connect. */
  start(): void {
    this.started = true;
    this.launch();
  }

  /** The SDK host is ready: connect the SDK servers registered so far (and any added later). */
  attachHost(port: McpMessagePort): void {
    if (this.port) return;
    this.port = port;
    this.launch();
  }

  private launch(): void {
    for (const e of this.entries.values()) {
      if (e.launched || e.state !== 'pending') continue;
      if (e.spec.kind === 'sdk' ? !this.port : !this.started) continue;
      e.launched = true;
      e.done = this.connect(e);
    }
  }

  /** No host will ever answer (one-shot mode): SDK servers fail now instead of staying pending. */
  noHost(reason: string): void {
    this.hostless = reason;
    for (const e of this.entries.values()) if (e.spec.kind === 'sdk' && e.state === 'pending') this.fail(e, reason);
  }

  /** Whether any server is an SDK server waiting for the host. */
  hasSdkServers(): boolean {
    return [...this.entries.values()].some((e) => e.spec.kind === 'sdk');
  }

  /** Waits until no server is pending, or `budgetMs` has passed (the first model request's wait). */
  async settled(budgetMs: number): Promise<void> {
    const pending = [...this.entries.values()].filter((e) => e.state === 'pending').map((e) => e.done);
    if (!pending.length) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all(pending), new Promise<void>((r) => (timer = setTimeout(r, budgetMs)))]);
    clearTimeout(timer);
  }

  /** A message the host sent on behalf of its SDK server `server`. False for a name that is not an SDK server. */
  deliver(server: string, message: unknown): boolean {
    const e = this.entries.get(server);
    if (!e || e.spec.kind !== 'sdk') return false;
    if (e.deliver) e.deliver(message);
    else if (e.early.length < 100) e.early.push(message);
    return true;
  }

  /** Stores (or clears, with null) a server's permission-mode override; false when no server has that name now. */
  setModeOverride(name: string, mode: 'default' | 'auto' | null): boolean {
    if (mode === null) this.modeOverrides.delete(name);
    else this.modeOverrides.set(name, mode);
    return this.entries.has(name);
  }

  modeOverride(name: string): 'default' | 'auto' | undefined {
    return this.modeOverrides.get(name);
  }

  /**
   * The host's per-tool permission policy (`tools[].permission_policy` of the server's config, initialize's
   * `sdkMcpServerConfigs`, or the latest `mcp_set_servers` entry) for the tool `toolName` of server `server`.
   */
  toolPolicy(server: string, toolName: string): McpToolPolicy | undefined {
    const spec = this.entries.get(server)?.spec;
    if (!spec || spec.kind === 'invalid' || spec.kind === 'withheld') return undefined;
    let byTool = this.policies.get(spec);
    if (!byTool) {
      byTool = new Map([...toolPolicies(spec.config.tools, spec.kind)].map(([raw, p]) => [mcpToolName(spec.name, raw), p]));
      this.policies.set(spec, byTool);
    }
    return byTool.get(toolName);
  }

  /** The server's current definition (for OAuth: mcp_authenticate, mcp_clear_auth). */
  specOf(name: string): McpServerSpec | undefined {
    return this.entries.get(name)?.spec;
  }

  /** An OAuth flow for `name` failed: a server that is failed or needs-auth is `needs-auth` with why (others keep their state). */
  authFailed(name: string, reason: string): void {
    const e = this.entries.get(name);
    if (!e || (e.state !== 'failed' && e.state !== 'needs-auth')) return;
    e.state = 'needs-auth';
    e.error = reason;
  }

  /** For system/init. */
  initList(): Array<{ name: string; status: McpServerState; source: McpSource; error?: string }> {
    return [...this.entries.values()].map((e) => ({ name: e.spec.name, status: e.state, source: e.spec.source, ...(e.error !== undefined ? { error: e.error } : {}) }));
  }

  /** For `mcp_status`. Configuration values that may hold secrets (env, headers) are not echoed. */
  status(): McpStatusRow[] {
    return [...this.entries.values()].map((e) => ({
      name: e.spec.name,
      status: e.state,
      ...(e.conn?.serverInfo ? { serverInfo: e.conn.serverInfo } : {}),
      ...(e.error !== undefined ? { error: e.error } : {}),
      config: publicConfig(e.spec),
      scope: e.spec.source,
      source: e.spec.source,
      ...(e.state === 'connected' && e.conn ? { tools: e.conn.summaries } : {}),
    }));
  }

  /**
   * `mcp_reconnect`: closes the server's connection (if any) and connects it again. Resolves with the new
   * state's error when it did not connect; rejects for a name no server has.
   */
  async reconnect(name: string): Promise<string | undefined> {
    const e = this.entries.get(name);
    if (!e) throw new Error(`No MCP server named "${name}".`);
    await this.disconnect(e);
    if (e.spec.kind === 'invalid' || e.spec.kind === 'withheld') return e.spec.kind === 'withheld' ? notApproved(name, e.spec.reason) : e.error;
    e.state = 'pending';
    delete e.error;
    e.launched = false;
    e.redials = 0;
    this.launch();
    await e.done;
    return this.stateOf(e) === 'connected' ? undefined : (e.error ?? `"${name}" is ${e.state}`);
  }

  /** `mcp_toggle`: a disabled server is disconnected and reported `disabled`; enabling connects it again. */
  async toggle(name: string, enabled: boolean): Promise<string | undefined> {
    const e = this.entries.get(name);
    if (!e) throw new Error(`No MCP server named "${name}".`);
    if (enabled) return e.state === 'disabled' || e.state === 'failed' || e.state === 'needs-auth' ? this.reconnect(name) : undefined;
    await this.disconnect(e);
    e.state = 'disabled';
    if (e.spec.kind !== 'withheld') delete e.error; // a withheld server keeps why it is off
    return undefined;
  }

  /** The resource tools are offered exactly while a connected server has resources. */
  private syncResourceTools(): void {
    const names = ['ListMcpResourcesTool', 'ReadMcpResourceTool'];
    if (this.withResources().size === 0) {
      if (this.resourceToolsAdded) for (const n of names) this.d.tools.remove(n);
      this.resourceToolsAdded = false;
      return;
    }
    if (this.resourceToolsAdded || !this.runtime) return;
    for (const t of this.runtime.resourceTools({ withResources: () => this.withResources() }, this.d.maxOutputChars)) {
      if (!this.d.isRemoved(t.name) && !this.d.tools.get(t.name)) this.d.tools.add(t);
    }
    this.resourceToolsAdded = true;
  }

  private withResources(): Map<string, ResourceAccess> {
    const out = new Map<string, ResourceAccess>();
    for (const e of this.entries.values()) if (e.state === 'connected' && e.conn?.resources) out.set(e.spec.name, e.conn.resources);
    return out;
  }

  /** Read through a call: the state changes across awaits, which narrowing does not see. */
  private stateOf(e: Entry): McpServerState {
    return e.state;
  }

  private async disconnect(e: Entry): Promise<void> {
    e.generation++;
    for (const n of e.toolNames) this.d.tools.remove(n);
    e.toolNames = [];
    const conn = e.conn;
    delete e.conn;
    // Marked first, so the connection's own close is not reported as a drop.
    e.state = 'disabled';
    this.syncResourceTools();
    await conn?.close().catch(() => undefined);
  }

  /**
   * `mcp_set_servers`, as the SDK documents `setMcpServers()`: replaces the servers added this way and every SDK
   * server; a configured server stays unless the call names it (then the new definition replaces it, and a later
   * call that omits it removes it). An unchanged definition keeps its connection. Resolves once the added servers
   * are connected or failed.
   */
  async setServers(specs: readonly McpServerSpec[]): Promise<{ added: string[]; removed: string[]; errors: Record<string, string> }> {
    const wanted = new Map(specs.map((s) => [s.name, s]));
    const added: string[] = [];
    const removed: string[] = [];
    const errors: Record<string, string> = {};
    for (const [name, e] of [...this.entries]) {
      const next = wanted.get(name);
      const replaceable = e.managed || e.spec.kind === 'sdk' || next !== undefined;
      if (!replaceable) continue;
      if (next && sameConnection(next, e.spec)) {
        // The policies a call names are replaced (an entry without `tools` clears them), the connection kept.
        e.spec = withPolicies(e.spec, next);
        e.managed = true;
        continue;
      }
      await this.disconnect(e);
      this.entries.delete(name);
      if (!next) removed.push(name);
    }
    const fresh: Entry[] = [];
    for (const spec of specs) {
      if (this.entries.has(spec.name)) continue;
      this.add([spec]);
      const e = this.entries.get(spec.name);
      if (!e) continue;
      e.managed = true;
      added.push(spec.name);
      fresh.push(e);
    }
    await Promise.all(fresh.map((e) => e.done));
    for (const e of fresh) if (this.stateOf(e) === 'failed' || this.stateOf(e) === 'needs-auth') errors[e.spec.name] = e.error ?? this.stateOf(e);
    return { added, removed, errors };
  }

  /** Closes every connection (stdio servers: their process groups are killed). Bounded by `maxMs`. */
  async close(maxMs = 2500): Promise<void> {
    this.closed = true;
    // The group kill polls on unref'd timers; this ref'd one keeps the process alive until it is done.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all([...this.entries.values()].map((e) => e.conn?.close().catch(() => undefined))),
      new Promise<void>((r) => (timer = setTimeout(r, maxMs))),
    ]);
    clearTimeout(timer);
  }

  private async connect(e: Entry): Promise<void> {
    const spec = e.spec;
    if (spec.kind === 'invalid' || spec.kind === 'withheld') return;
    const gen = ++e.generation;
    const current = (): boolean => e.generation === gen && !this.closed;
    try {
      const mod = await (this.d.load ?? loadDefault)();
      const conn = await mod.connectServer(spec, {
        ...this.d,
        port: this.port,
        // Asked when the server asks: the host may have attached since the connection was made.
        elicit: (ask, signal) => (this.port?.elicit ? this.port.elicit(ask, signal) : Promise.resolve({ action: 'decline' as const })),
        registerDeliver: (fn) => {
          e.deliver = fn;
          for (const m of e.early.splice(0)) fn(m);
        },
        onToolsChanged: (tools, summaries) => {
          if (!current() || e.state !== 'connected' || !e.conn) return;
          // Between model rounds the registry is read afresh, so the next request offers the new set.
          for (const n of e.toolNames) this.d.tools.remove(n);
          e.toolNames = [];
          e.conn = { ...e.conn, tools, summaries };
          this.register(e, tools);
        },
        onClosed: (reason) => {
          if (!current() || e.state !== 'connected') return;
          this.d.logger.warn({ server: spec.name, reason }, 'MCP server disconnected');
          for (const n of e.toolNames) this.d.tools.remove(n);
          e.toolNames = [];
          delete e.conn;
          this.fail(e, `disconnected: ${reason}`);
          this.syncResourceTools();
          if (spec.kind === 'stdio' || spec.kind === 'remote') e.done = this.redial(e, reason);
        },
      });
      // Closed, disabled or reconnected meanwhile: this connection is not wanted any more.
      if (!current() || e.state !== 'pending') {
        await conn.close();
        return;
      }
      e.conn = conn;
      this.register(e, conn.tools);
      e.state = 'connected';
      delete e.error;
      e.connectedAt = Date.now();
      this.runtime = mod;
      this.syncResourceTools();
    } catch (err) {
      if (!current() || e.state !== 'pending') return;
      if (err instanceof Error && err.name === 'McpNeedsAuthError') {
        e.state = 'needs-auth';
        e.error = err.message;
        this.d.logger.warn({ server: spec.name, reason: err.message }, 'MCP server needs authentication');
      } else this.fail(e, err instanceof Error ? err.message : String(err));
    }
  }

  /**
   * A dropped stdio server: pending while it is dialled again after each delay; connected again, or failed with
   * the drop's reason and the last attempt's. The host's reconnect/toggle/set_servers or the session's end
   * (a newer generation, or `closed`) stops it.
   */
  private async redial(e: Entry, dropReason: string): Promise<void> {
    const delays = this.d.redialDelaysMs ?? DEFAULT_REDIAL_DELAYS_MS;
    if (Date.now() - e.connectedAt >= (this.d.redialStableMs ?? DEFAULT_REDIAL_STABLE_MS)) e.redials = 0;
    if (e.redials >= delays.length) {
      if (delays.length) e.error = `disconnected: ${dropReason} (not redialled: ${delays.length} redials since it last stayed up; use mcp_reconnect)`;
      return;
    }
    let gen = e.generation;
    let last = '';
    while (e.redials < delays.length) {
      const attempt = ++e.redials;
      e.state = 'pending';
      e.error = `disconnected: ${dropReason}; redialling (${attempt} of ${delays.length})`;
      await new Promise<void>((r) => setTimeout(r, delays[attempt - 1]).unref?.());
      // The host reconnected, disabled or replaced it meanwhile, or the session ended.
      if (e.generation !== gen || this.closed || e.state !== 'pending') return;
      e.launched = true;
      await this.connect(e);
      gen = e.generation;
      if (this.stateOf(e) === 'connected') return;
      if (this.stateOf(e) !== 'failed') return;
      last = e.error ?? 'failed';
    }
    this.fail(e, `disconnected: ${dropReason}; redialling failed (${e.redials} of ${delays.length}), the last: ${last}`);
  }

  private register(e: Entry, tools: readonly AnyTool[]): void {
    for (const t of tools) {
      if (this.d.isRemoved(t.name)) continue;
      // A name a built-in (or another server) already has is not taken over: the first one stays.
      if (this.d.tools.get(t.name)) {
        this.d.logger.warn({ server: e.spec.name, tool: t.name }, 'MCP tool name already taken; tool ignored');
        continue;
      }
      this.d.tools.add(t);
      e.toolNames.push(t.name);
    }
  }

  private fail(e: Entry, reason: string): void {
    e.state = 'failed';
    e.error = reason;
    this.d.logger.warn({ server: e.spec.name, reason }, 'MCP server failed');
  }
}
