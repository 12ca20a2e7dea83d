// The process edge of the composition root: the input loop (a one-shot prompt, or stdin frames until EOF), the
// end at EOF, and the shutdown a signal or the host's disappearance asks for. Created before the object graph (the
// frame writer must be able to ask for a shutdown), given its parts with `attach`, started with `run`.
import type { Readable, Writable } from 'node:stream';
import type { OutboundFrame } from '../../protocol/src/index.js';
import type { Logger } from '../log/logger.js';
import type { AbortReason } from '../util/abort.js';
import { newUuid } from '../util/ids.js';
import { readLines, type LineEvent } from '../transport/line-reader.js';
import { EXIT } from './exit-codes.js';
import { printText, readAll } from './app-support.js';

export interface LifecycleParts {
  /** Settles before stdin is read; true: start-up failed (a required sandbox) and was reported, the run ends. */
  startupGate?: () => Promise<boolean>;
  stdin: Readable;
  stdout: Writable;
  /** One-shot mode: the prompt is text (argument or stdin), the result is printed at the end unless stream-json. */
  printMode: boolean;
  outputFormat: 'text' | 'json' | 'stream-json';
  prompt: string | undefined;
  maxLineBytes: number;
  logger: Logger;
  lastResult: () => OutboundFrame | undefined;
  handleLine: (ev: LineEvent) => Promise<void>;
  submitPrompt: (prompt: { uuid: string; content: string; shouldQuery: true; isSynthetic: false }) => void;
  /** After the first line (or at once in one-shot mode): load what a turn needs. */
  warmUp: () => void;
  /** Pending requests to the host resolve (as denied): it can no longer answer. */
  closeHostRequests: (why: string) => void;
  session: { abortAll(reason: AbortReason): void; endOfInput(): void; done(): Promise<void> };
  /** Stops every child (MCP servers, background shells, tool process groups). */
  stopChildren: () => Promise<unknown>;
  /** SIGKILLs every child now, with no grace period (the host is gone: nobody is owed one). */
  killChildrenNow: () => void;
  sessionEnd: (reason: 'prompt_input_exit' | 'other', timeoutMs: number) => Promise<unknown>;
  closeTranscript: () => void;
  drainFrames: () => Promise<void>;
  /** An error no handler can deal with (cli/fatal.ts): the daemon ends with the internal-error code. */
  fatal: (err: unknown, origin: string) => void;
}

export class AppLifecycle {
  readonly exit: Promise<number>;
  private resolveExit: (code: number) => void = () => undefined;
  private finishing = false;
  private shuttingDown = false;
  private parts: LifecycleParts | undefined;

  constructor() {
    this.exit = new Promise<number>((r) => {
      this.resolveExit = r;
    });
  }

  /** The daemon is writing its last frames: nothing new goes to the host. */
  get exiting(): boolean {
    return this.finishing;
  }

  attach(parts: LifecycleParts): void {
    this.parts = parts;
  }

  /** Signal or host loss: abort, stop children (bounded), flush, exit with `code`, even if stdin ends meanwhile. */
  shutdown(code: number, reason: AbortReason): void {
    const p = this.parts;
    if (this.finishing || this.shuttingDown) return;
    this.shuttingDown = true;
    if (!p) {
      this.finishing = true;
      this.resolveExit(code);
      return;
    }
    p.closeHostRequests(reason.kind);
    // A host that left is owed no grace period: a tool that ignores SIGTERM would otherwise hold the daemon for
    // the whole grace (2 s) after nobody is reading. Killed before the turn is aborted, so the tools' own stop
    // (SIGTERM, then SIGKILL after a grace) finds their groups gone. A signal keeps the grace: a supervisor
    // stopping agentd may still be reading, and a tool may need the moment to clean up.
    if (reason.kind === 'host_gone') p.killChildrenNow();
    p.session.abortAll(reason);
    const stopped = Promise.race([Promise.all([p.session.done(), p.stopChildren()]), new Promise((r) => setTimeout(r, 2500))]);
    stopped.then(() => this.finish(code, 'other')).catch((err: unknown) => p.fatal(err, 'shutdown'));
  }

  /** An internal error is being reported: nothing more is read or sent after its frame. */
  stopForInternalError(): void {
    this.finishing = true;
  }

  /** Serves the input until it ends, then lets queued work finish and exits. */
  run(): void {
    const p = this.parts;
    if (!p) throw new Error('AppLifecycle.run before attach');
    this.serve(p).catch((err: unknown) => p.fatal(err, 'stdin loop')); // an internal error, never unobserved
  }

  private async serve(p: LifecycleParts): Promise<void> {
    {
      if (await p.startupGate?.()) {
        this.finishing = true;
        p.closeTranscript();
        this.resolveExit(EXIT.startup);
        return;
      }
      try {
        if (p.printMode) {
          p.warmUp();
          const prompt = p.prompt ?? (await readAll(p.stdin));
          p.submitPrompt({ uuid: newUuid(), content: prompt, shouldQuery: true, isSynthetic: false });
        } else {
          let first = true;
          for await (const ev of readLines(p.stdin, { maxLineBytes: p.maxLineBytes })) {
            if (this.finishing) break;
            await p.handleLine(ev);
            if (first) setImmediate(p.warmUp);
            first = false;
          }
        }
      } catch (err) {
        p.logger.error({ err }, 'stdin failed');
      }
      if (this.finishing || this.shuttingDown) return;
      // stdin EOF: requests to the host can no longer be answered (they resolve as denied); queued work finishes.
      p.closeHostRequests('stdin closed');
      p.session.endOfInput();
      await p.session.done();
      // No tool or MCP server process outlives the daemon: stopped calls may still be inside their kill grace period.
      await p.stopChildren();
      if (this.shuttingDown) return;
      const last = p.lastResult();
      // As Claude Code 2.1.330 (measured, test/measure/api-error-results.measure.ts): exit 1 when the last turn's
      // result was an error, in stream-json too; the SDKs then report that result's text.
      const failed = last?.type === 'result' && last.is_error;
      await this.finish(failed ? EXIT.turnError : EXIT.ok, 'prompt_input_exit');
    }
  }

  private async finish(code: number, reason: 'prompt_input_exit' | 'other'): Promise<void> {
    const p = this.parts;
    if (this.finishing || !p) return;
    this.finishing = true;
    // SessionEnd hooks get a bounded moment (command hooks; SDK callbacks cannot be answered once stdin is closed).
    await p.sessionEnd(reason, 1500).catch(() => undefined);
    const last = p.lastResult();
    if (p.printMode && p.outputFormat !== 'stream-json' && last) {
      const line = p.outputFormat === 'json' ? JSON.stringify(last) : printText(last);
      p.stdout.write(`${line}\n`);
    }
    p.closeTranscript();
    await p.drainFrames();
    this.resolveExit(code);
  }
}
