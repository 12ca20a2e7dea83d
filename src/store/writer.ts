// The write-ahead transcript: one JSONL line per conversation event, appended synchronously before the session
// reports the event, so whatever a host has seen is on disk (up to the OS cache; `flush` fdatasyncs it before
// each result). Entries form one parentUuid chain in record order; getSessionMessages and resume walk it back
// from the last entry.
import { closeSync, fdatasync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../log/logger.js';
import type { UserBlock } from '../model/types.js';
import type { RecordedEvent, TranscriptRecorder } from '../thread/recorder.js';
import type { ModelUsageTotals } from '../thread/events.js';
import { assertNever } from '../util/assert-never.js';
import { type EntryContext, USAGE_ENTRY_TYPE, assistantEntry, compactBoundaryEntry, compactSummaryEntry, rewindEntry, userEntry } from './entries.js';

export interface TranscriptWriterOptions {
  path: string;
  context: EntryContext;
  /** The entry new entries continue from: the resumed chain's last uuid, or null for a new session. */
  parentUuid: string | null;
  now: () => number;
  logger: Logger;
  /** Cumulative model usage, saved at each flush when it changed (late-bound: the ledger is built later). */
  usage?: () => Record<string, ModelUsageTotals>;
  /** The usage the file already holds (a resumed session), so an unchanged total is not written again. */
  savedUsage?: Record<string, ModelUsageTotals>;
  /**
   * Called once, at the first line that cannot be saved (disk full, quota, I/O error, file that cannot be
   * opened), with the error code (`ENOSPC`, `EDQUOT`, `EIO`, …): the host is told (`system/session_writes_lost`).
   */
  onLost?: (info: { code: string; sessionId: string }) => void;
  /** For tests: the write call (to simulate a disk that fills up part-way through a line). */
  io?: { writeSync: typeof writeSync };
  /** Removes agentd's secret values from each line (util/secrets.ts). */
  redact?: (line: string) => string;
  /** A subagent's sidechain file: conversation entries only (no last-prompt or usage lines; the session has them). */
  sidechain?: boolean;
}

/** A recorder the CLI closes at exit, and asks whether lines were lost (for a `session_writes_lost` notice). */
export interface ClosableRecorder extends TranscriptRecorder {
  /** Writes the metadata lines, syncs and closes the file. Later records are counted as lost. */
  close(): void;
  /** Stores a session title (`generate_session_title` with `persist`): what session lists show. */
  recordTitle(title: string): void;
  readonly linesLost: number;
}

const LAST_PROMPT_MAX = 200;

function promptText(content: string | UserBlock[]): string {
  const text = typeof content === 'string' ? content : content.flatMap((b) => (b.type === 'text' && typeof b['text'] === 'string' ? [b['text']] : [])).join(' ');
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > LAST_PROMPT_MAX ? `${flat.slice(0, LAST_PROMPT_MAX).trim()}…` : flat;
}

export class TranscriptWriter implements ClosableRecorder {
  private fd: number | undefined;
  private opened = false;
  private last: string | null;
  /** uuid → parentUuid of entries written this process, so a retried stream can branch around its dead attempt. */
  private readonly parents = new Map<string, string | null>();
  /** tool_use id → uuid of the assistant entry holding it (`sourceToolAssistantUUID` of its result). */
  private readonly toolUseEntries = new Map<string, string>();
  private lastPrompt: string | undefined;
  private lastPromptLeaf: string | null = null;
  private savedUsage = '';
  private lost = 0;
  private failedOpen = false;
  /** Bytes of whole records in the file: a failed write is cut back to this. */
  private size = 0;
  /**
   * Set by the first failed write: nothing more is appended, so the file stays a consistent prefix of the
   * conversation (a later record could name a parent, or answer a tool_use, that was never saved).
   */
  private stopped = false;

  constructor(private readonly opts: TranscriptWriterOptions) {
    this.last = opts.parentUuid;
    if (opts.savedUsage) this.savedUsage = JSON.stringify(opts.savedUsage);
  }

  get path(): string {
    return this.opts.path;
  }

  /** The uuid the next conversation entry will name as its parent. */
  get lastUuid(): string | null {
    return this.last;
  }

  /** Lines that could not be written (disk full, file gone); the conversation itself carries on. */
  get linesLost(): number {
    return this.lost;
  }

  /** Tells the writer which entry holds a tool_use written by an earlier process (resume repairs). */
  rememberToolUse(toolUseId: string, entryUuid: string): void {
    this.toolUseEntries.set(toolUseId, entryUuid);
  }

  record(ev: RecordedEvent): void {
    const ctx = this.opts.context;
    const timestamp = new Date(this.opts.now()).toISOString();
    switch (ev.type) {
      case 'user_prompt': {
        const parentUuid = this.last;
        if (this.appendChained(userEntry(ctx, { uuid: ev.uuid, parentUuid, timestamp, content: ev.content, isMeta: ev.isSynthetic }), ev.uuid, parentUuid)) {
          if (!ev.isSynthetic) this.lastPrompt = promptText(ev.content) || this.lastPrompt;
        }
        return;
      }
      case 'user_text': {
        const parentUuid = this.last;
        this.appendChained(userEntry(ctx, { uuid: ev.uuid, parentUuid, timestamp, content: [{ type: 'text', text: ev.text }] }), ev.uuid, parentUuid);
        return;
      }
      case 'tool_result': {
        const parentUuid = this.last;
        const source = this.toolUseEntries.get(ev.toolUseId);
        const entry = userEntry(ctx, {
          uuid: ev.uuid,
          parentUuid,
          timestamp,
          content: [ev.block],
          toolUseResult: ev.data,
          ...(source !== undefined ? { sourceToolAssistantUUID: source } : {}),
          ...(ev.decision !== undefined ? { permissionDecision: ev.decision } : {}),
        });
        this.appendChained(entry, ev.uuid, parentUuid);
        return;
      }
      case 'assistant_block': {
        // A retried stream supersedes the blocks of the broken attempt: branch from where that attempt began, so
        // its blocks (and the results of its discarded calls) drop out of the chain instead of being replayed.
        const first = ev.supersedes?.[0];
        const parentUuid = first !== undefined && this.parents.has(first) ? (this.parents.get(first) ?? null) : this.last;
        const entry = assistantEntry(ctx, {
          uuid: ev.uuid,
          parentUuid,
          timestamp,
          message: {
            id: ev.meta.id,
            type: 'message',
            role: 'assistant',
            model: ev.meta.model,
            content: [ev.block],
            stop_reason: null,
            stop_sequence: null,
            usage: ev.meta.usage,
          },
          ...(ev.meta.requestId !== undefined ? { requestId: ev.meta.requestId } : {}),
          ...(ev.error !== undefined ? { error: ev.error } : {}),
        });
        if (this.appendChained(entry, ev.uuid, parentUuid) && ev.block.type === 'tool_use') this.toolUseEntries.set(ev.block.id, ev.uuid);
        return;
      }
      case 'compact_boundary': {
        const entry = compactBoundaryEntry(ctx, { uuid: ev.uuid, logicalParentUuid: this.last, timestamp, trigger: ev.trigger, preTokens: ev.preTokens, postTokens: ev.postTokens, durationMs: ev.durationMs });
        this.appendChained(entry, ev.uuid, null);
        return;
      }
      case 'compact_summary': {
        const parentUuid = this.last;
        this.appendChained(compactSummaryEntry(ctx, { uuid: ev.uuid, parentUuid, timestamp, text: ev.text }), ev.uuid, parentUuid);
        return;
      }
      case 'rewind': {
        const parentUuid = this.last;
        this.appendChained(rewindEntry(ctx, { uuid: ev.uuid, parentUuid, timestamp, to: ev.to, reason: ev.reason }), ev.uuid, parentUuid);
        return;
      }
      default:
        assertNever(ev, 'recorded event');
    }
  }

  /** Appends entries as they are (a fork's copied chain); the last one becomes the chain's tail. */
  appendCopied(entries: ReadonlyArray<{ uuid: string; parentUuid: string | null }>): void {
    for (const e of entries) this.appendChained(e, e.uuid, e.parentUuid);
  }

  /** Claude Code's `ai-title` line; the SDK's session lists prefer it to the last prompt (a custom title wins). */
  recordTitle(title: string): void {
    this.appendLine({ type: 'ai-title', aiTitle: title, sessionId: this.opts.context.sessionId });
  }

  async flush(): Promise<void> {
    this.writeMetadata();
    const fd = this.fd;
    if (fd === undefined || this.stopped) return;
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => fdatasync(fd, resolve));
    // The lines are written but may not be on disk: say so once, and write nothing more.
    if (err) this.fail(err);
  }

  close(): void {
    this.writeMetadata();
    const fd = this.fd;
    if (fd === undefined) return;
    this.fd = undefined;
    try {
      fdatasyncSync(fd);
    } catch (err) {
      this.opts.logger.warn({ err, path: this.opts.path }, 'transcript sync failed at close');
    }
    closeSync(fd);
  }

  /** Metadata lines Claude Code's readers use (`last-prompt` → listSessions summary) and agentd's usage. */
  private writeMetadata(): void {
    if (this.fd === undefined || this.opts.sidechain === true) return;
    const sessionId = this.opts.context.sessionId;
    if (this.lastPrompt !== undefined && this.last !== this.lastPromptLeaf) {
      if (this.appendLine({ type: 'last-prompt', lastPrompt: this.lastPrompt, leafUuid: this.last, sessionId })) this.lastPromptLeaf = this.last;
    }
    const usage = this.opts.usage?.();
    if (usage && Object.keys(usage).length > 0) {
      const line = JSON.stringify(usage);
      if (line !== this.savedUsage) {
        const entry = { type: USAGE_ENTRY_TYPE, sessionId, timestamp: new Date(this.opts.now()).toISOString(), modelUsage: usage };
        if (this.appendLine(entry)) this.savedUsage = line;
      }
    }
    // Superseded attempts and tool results only span one turn, and flush ends a turn: forget the turn's links.
    this.parents.clear();
    this.toolUseEntries.clear();
  }

  private appendChained(entry: object, uuid: string, parentUuid: string | null): boolean {
    if (!this.appendLine(entry)) return false;
    this.parents.set(uuid, parentUuid);
    this.last = uuid;
    return true;
  }

  private appendLine(entry: object): boolean {
    if (this.stopped) return this.lose();
    const line = this.serialize(entry);
    if (line === undefined) return false;
    const fd = this.ensureOpen();
    if (fd === undefined) return this.lose();
    const write = this.opts.io?.writeSync ?? writeSync;
    const buf = Buffer.from(line, 'utf8');
    let off = 0;
    try {
      while (off < buf.length) off += write(fd, buf, off, buf.length - off);
      this.size += buf.length;
      return true;
    } catch (err) {
      // Part of the line may be in the file: cut it back to the last whole record. Should that fail too, the
      // torn line is at least the last one (nothing is appended after a failure), which readers skip and the
      // next run terminates (terminateTornLine).
      if (off > 0) {
        try {
          ftruncateSync(fd, this.size);
        } catch (e) {
          this.opts.logger.error({ err: e, path: this.opts.path }, 'could not cut a partly written transcript line back; it is the last line');
        }
      }
      this.fail(err);
      return this.lose();
    }
  }

  /** The first failure: log, tell the host, stop appending. */
  private fail(err: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    this.opts.logger.error({ err, path: this.opts.path }, 'transcript write failed; the transcript keeps the records before it and the session continues without saving the rest');
    this.notify(err);
  }

  private notify(err: unknown): void {
    const code = typeof (err as { code?: unknown } | undefined)?.code === 'string' ? (err as { code: string }).code : 'EIO';
    try {
      this.opts.onLost?.({ code, sessionId: this.opts.context.sessionId });
    } catch (e) {
      this.opts.logger.error({ err: e }, 'transcript loss notice failed');
    }
  }

  private serialize(entry: object): string | undefined {
    try {
      const line = `${JSON.stringify(entry)}\n`;
      return this.opts.redact ? this.opts.redact(line) : line;
    } catch (err) {
      // A tool's structured output that JSON cannot hold (a cycle, a BigInt): keep the entry without it.
      if ('toolUseResult' in entry) {
        const { toolUseResult: _dropped, ...rest } = entry;
        this.opts.logger.warn({ err }, 'tool output is not serialisable; transcript entry written without toolUseResult');
        return this.serialize(rest);
      }
      this.opts.logger.error({ err }, 'transcript entry is not serialisable');
      this.lost++;
      return undefined;
    }
  }

  private lose(): false {
    this.lost++;
    return false;
  }

  /** Opens lazily: a session that never records anything leaves no file behind. */
  private ensureOpen(): number | undefined {
    if (this.opened) return this.fd;
    if (this.failedOpen) return undefined;
    try {
      mkdirSync(dirname(this.opts.path), { recursive: true, mode: 0o700 });
      const fd = openSync(this.opts.path, 'a+', 0o600);
      this.terminateTornLine(fd);
      this.size = fstatSync(fd).size;
      this.fd = fd;
      this.opened = true;
      return fd;
    } catch (err) {
      this.failedOpen = true;
      this.opts.logger.error({ err, path: this.opts.path }, 'cannot open the transcript; the session will not be saved');
      this.notify(err);
      return undefined;
    }
  }

  /** A run killed mid-write leaves a line without `\n`; end it so our first line does not glue onto it. */
  private terminateTornLine(fd: number): void {
    const size = fstatSync(fd).size;
    if (size === 0) return;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] !== 0x0a) writeSync(fd, '\n');
  }
}
