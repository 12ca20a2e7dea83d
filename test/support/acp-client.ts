// Drives Zed's claude-agent-acp (the ACP adapter over the Claude Agent SDK 0.2.83) as an ACP client, with agentd as
// its CLAUDE_CODE_EXECUTABLE on the scripted model: the adapter is started over stdio exactly as an editor starts
// it, so everything agentd sees comes from the adapter's own SDK.
import {
  type Client,
  ClientSideConnection,
  ndJsonStream,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import type { ModelRequest } from '../../src/model/types.js';
import { AGENTD, baseEnv, tempDir } from './daemon.js';

const require = createRequire(import.meta.url);
/** The adapter's bin (package.json `bin.claude-agent-acp`), resolved through its package so a version bump follows. */
export const ACP_BIN = join(require.resolve('@zed-industries/claude-agent-acp/package.json'), '..', 'dist/index.js');

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

export function acpWorld(scenario: Scenario): AcpWorld {
  const dir = tempDir('agentd-acp-');
  const scenarioPath = join(dir, 'scenario.json');
  const recordPath = join(dir, 'requests.ndjson');
  writeFileSync(scenarioPath, JSON.stringify(scenario));
  // Real paths: the adapter lists sessions by cwd, and agentd keys transcripts by its (resolved) working directory.
  const cwd = realpathSync(tempDir('agentd-acp-ws-'));
  const env = baseEnv({
    CLAUDE_CODE_EXECUTABLE: AGENTD,
    AGENTD_MODEL_PROVIDER: 'scripted',
    AGENTD_SCENARIO: scenarioPath,
    AGENTD_SCENARIO_RECORD: recordPath,
  });
  return {
    cwd,
    env,
    requests: () =>
      existsSync(recordPath)
        ? readFileSync(recordPath, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as ModelRequest)
        : [],
    start: () => startAcp(cwd, env),
  };
}

async function startAcp(cwd: string, env: Record<string, string>): Promise<AcpAgent> {
  const child: ChildProcess = spawn(process.execPath, [ACP_BIN], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
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
    sessionUpdate: async (n) => {
      updates.push(n);
      for (const l of [...listeners]) l(n.update);
    },
  };
  if (!child.stdin || !child.stdout) throw new Error('claude-agent-acp was spawned without pipes');
  const stream = ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const agent: AcpAgent = {
    conn: new ClientSideConnection(() => client, stream),
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
  await agent.conn.initialize({ protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  return agent;
}

/** The text of the agent_message_chunk updates of one session, in order (empty block-start chunks dropped). */
export function agentText(notifications: SessionNotification[], sessionId: string): string[] {
  return notifications
    .filter((n) => n.sessionId === sessionId)
    .map((n) => n.update)
    .flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text !== '' ? [u.content.text] : []));
}
