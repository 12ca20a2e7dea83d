// The MCP stdio transport for agentd: like the SDK's StdioClientTransport, but the server runs in its own process
// group (so closing it reaches its children too, and the daemon's shutdown kills the group on every exit path),
// with the environment agentd gives tools (its credentials removed), and with the last lines of its stderr kept
// as the reason when it fails.
import { type ChildProcess, spawn } from 'node:child_process';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const STDERR_LINES = 20;
const STDERR_LINE_CHARS = 500;
/**
 * The largest message a stdio server may send (as agentd's own inbound line cap). A larger one closes the
 * connection with the reason (the calls waiting on it fail naming it; the server is redialled): memory stays
 * bounded, and the answer's text would be cut to MAX_MCP_OUTPUT_TOKENS anyway.
 */
export const MAX_STDIO_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * Newline-delimited messages from a byte stream in linear time: a chunk is searched once, and a message's
 * pieces are joined once (the MCP SDK's ReadBuffer re-copies its whole buffer per chunk, quadratic in a large
 * message, and throws out of the stream's `data` handler when over its cap).
 */
export class LineBuffer {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  /** The complete lines in `chunk` (with what came before them); throws when a line would exceed the cap. */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      const line = this.parts.length ? Buffer.concat([...this.parts, piece], this.size + piece.length) : piece;
      this.parts = [];
      this.size = 0;
      if (line.length > this.maxBytes) throw new Error(`the server sent a message of ${line.length} bytes, over the ${this.maxBytes}-byte limit`);
      lines.push(line);
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.size += chunk.length - start;
      if (this.size > this.maxBytes) {
        this.clear();
        throw new Error(`the server sent a message over the ${this.maxBytes}-byte limit`);
      }
      this.parts.push(chunk.subarray(start));
    }
    return lines;
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
  }
}

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
  private readonly buffer = new LineBuffer(MAX_STDIO_MESSAGE_BYTES);
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
        if (this.closed) return;
        let lines: Buffer[];
        try {
          lines = this.buffer.push(chunk);
        } catch (e) {
          // Over the size cap: this connection is finished (the reason reaches the calls through onerror).
          this.onerror?.(e instanceof Error ? e : new Error(String(e)));
          void this.close();
          return;
        }
        for (const raw of lines) {
          const line = raw.toString('utf8').replace(/\r$/, '');
          let message: JSONRPCMessage;
          try {
            message = deserializeMessage(line);
          } catch (e) {
            // A line that is not JSON-RPC (a server printing to stdout): reported, and the stream goes on.
            this.onerror?.(e instanceof Error ? e : new Error(String(e)));
            continue;
          }
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
