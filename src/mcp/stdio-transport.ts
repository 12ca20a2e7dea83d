// The MCP stdio transport for agentd: like the SDK's StdioClientTransport, but the server runs in its own process
// group (so closing it reaches its children too, and the daemon's shutdown kills the group on every exit path),
// with the environment agentd gives tools (its credentials removed), and with the last lines of its stderr kept
// as the reason when it fails.
import { type ChildProcess, spawn } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const STDERR_LINES = 20;
const STDERR_LINE_CHARS = 500;

export interface StdioTransportOptions {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string;
  /** Registers the server's process group with the daemon's tracker; returns the unregister function. */
  trackProcessGroup(pgid: number): () => void;
  /** Kills the group: SIGTERM, then SIGKILL after a grace period. */
  killGroup(pgid: number): Promise<void>;
}

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
  private readonly stderrLines: string[] = [];
  private stderrPartial = '';
  private untrack: (() => void) | undefined;
  private exitInfo: string | undefined;
  private closed = false;
  private markExited!: () => void;
  private readonly exitedPromise = new Promise<void>((r) => {
    this.markExited = r;
  });

  constructor(private readonly o: StdioTransportOptions) {}

  /** Resolves when the process has exited and its output is read, or after `maxMs`, whichever is first. */
  exited(maxMs: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    return Promise.race([this.exitedPromise, new Promise<void>((r) => (timer = setTimeout(r, maxMs)))]).finally(() => clearTimeout(timer));
  }

  /** The last lines the server wrote to stderr, oldest first. */
  stderrTail(): string[] {
    const partial = this.stderrPartial.trim();
    return partial ? [...this.stderrLines, partial.slice(0, STDERR_LINE_CHARS)] : [...this.stderrLines];
  }

  /** "exited with code 3" once the process is gone. */
  exitDescription(): string | undefined {
    return this.exitInfo;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.o.command, [...this.o.args], {
        cwd: this.o.cwd,
        env: { ...this.o.env },
        // stdout is the protocol channel; stderr is kept for failure reasons; the server leads its own group.
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        windowsHide: true,
      });
      this.child = child;
      child.once('error', (err) => {
        this.exitInfo = err.message;
        this.markExited();
        reject(err);
        this.onerror?.(err);
        this.finish();
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) this.untrack = this.o.trackProcessGroup(child.pid);
        resolve();
      });
      child.once('close', (code, signal) => {
        this.exitInfo = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        this.markExited();
        this.finish();
      });
      child.stdout?.on('data', (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (e) {
            // A line that is not JSON-RPC (a server printing to stdout): reported, and the stream goes on.
            this.onerror?.(e instanceof Error ? e : new Error(String(e)));
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stderr?.on('data', (chunk: Buffer) => this.keepStderr(chunk.toString('utf8')));
      child.stdin?.on('error', (err) => this.onerror?.(err));
    });
  }

  private keepStderr(text: string): void {
    const parts = (this.stderrPartial + text).split('\n');
    this.stderrPartial = (parts.pop() ?? '').slice(-STDERR_LINE_CHARS * 4);
    for (const line of parts) {
      const l = line.trimEnd();
      if (!l) continue;
      this.stderrLines.push(l.slice(0, STDERR_LINE_CHARS));
      if (this.stderrLines.length > STDERR_LINES) this.stderrLines.shift();
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) {
        reject(new Error('The MCP server is not running.'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (child?.pid !== undefined) {
      // Even when the leader has exited, a child it left behind still belongs to the group.
      child.stdin?.end();
      await this.o.killGroup(child.pid);
    }
    this.untrack?.();
    this.untrack = undefined;
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    this.onclose?.();
  }
}
