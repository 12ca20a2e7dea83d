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
  /** What went wrong with the file, and when it recovered (see TranscriptTrouble); the host is told. */
  onTrouble?: (t: TranscriptTrouble) => void;
  /** For tests: the write call (to simulate a disk that fills up part-way through a line). */
  io?: { writeSync: typeof writeSync };
  /** Bytes of lines held in memory while writes fail, before the transcript stops for good (default 64 MiB). */
  maxHeldBytes?: number;
  /** Removes agentd's secret values from each line (util/secrets.ts). */
  redact?: (line: string) => string;
  /** A subagent's sidechain file: conversation entries only (no last-prompt or usage lines; the session has them). */
  sidechain?: boolean;
}

/**
 * The transcript's troubles, as they happen. While writes fail with an error that may pass (disk full, quota,
 * I/O error), lines are held in memory, in order, and appended when a write succeeds again: `failing` once per
 * episode, `recovered` when the held lines are in the file. Lines are `lost` for good when the held lines pass
 * their bound (nothing more is recorded), at close while some are still held, or when the file cannot be used at
 * all (a permission, a path that is not a directory), naming the first conversation entry that is missing (the
 * transcript stays a prefix of the conversation: nothing recorded after it is in the file either).
 * A failed fdatasync is `lost` with no detail: which of the written lines reached the disk is unknown.
 */
export type TranscriptTrouble =
  | { kind: 'failing'; code: string; sessionId: string; path: string }
  | { kind: 'recovered'; sessionId: string; path: string; lines: number }
  | { kind: 'lost'; code: string; sessionId: string; firstLostUuid: string | undefined };

/** Errors that may pass (space freed, quota raised, a device back): lines are held and retried. */
const TRANSIENT = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EAGAIN', 'EINTR', 'ENOMEM', 'EMFILE', 'ENFILE', 'EBUSY']);
const DEFAULT_MAX_HELD_BYTES = 64 * 1024 * 1024;

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'EIO';
}

/** A line not yet in the file, and the conversation entry it holds (metadata lines have none). */
interface HeldLine {
  buf: Buffer;
  uuid: string | undefined;
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
  private last: string | null;
  /** uuid → parentUuid of entries written this process, so a retried stream can branch around its dead attempt. */
  private readonly parents = new Map<string, string | null>();
  /** tool_use id → uuid of the assistant entry holding it (`sourceToolAssistantUUID` of its result). */
  private readonly toolUseEntries = new Map<string, string>();
  private lastPrompt: string | undefined;
  private lastPromptLeaf: string | null = null;
  private savedUsage = '';
  private lost = 0;
  /** Bytes of whole records in the file: a failed write is cut back to this. */
  private size = 0;
  /**
   * Lines accepted but not yet in the file, in order: they are appended before any newer line, so the file stays
   * a consistent prefix of the conversation (a later record could name a parent, or answer a tool_use, that is
   * held). Retried at every record, flush and close.
   */
  private held: HeldLine[] = [];
  private heldBytes = 0;
  /** The error of the current failure episode (undefined while writes succeed). */
  private failing: string | undefined;
  /** Lines held in this episode (for the recovery notice). */
  private heldInEpisode = 0;
  /**
   * Set when lines are lost for good (the held lines passed their bound, or the file cannot be used at all):
   * nothing more is accepted, as a later record could name a parent that was never saved.
   */
  private stopped: { code: string; firstLostUuid: string | undefined } | undefined;
  /** A part-written line could not be cut back: cut it before the next write. */
  private torn = false;

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
    if (this.held.length) this.release();
    const fd = this.fd;
    if (fd === undefined || this.held.length) return;
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => fdatasync(fd, resolve));
    // The lines are written but may not be on disk, and which of them is unknown: say so.
    if (err) {
      this.opts.logger.error({ err, path: this.opts.path }, 'transcript sync failed; lines written since the last sync may not be on disk');
      this.notify({ kind: 'lost', code: codeOf(err), sessionId: this.opts.context.sessionId, firstLostUuid: undefined });
    }
  }

  close(): void {
    this.writeMetadata();
    if (this.held.length) this.release();
    // Still held at the end: these lines are lost now. The transcript ends before the first of them.
    if (this.held.length) {
      const first = this.held.find((h) => h.uuid !== undefined)?.uuid;
      this.lost += this.held.length;
      this.opts.logger.error({ path: this.opts.path, lines: this.held.length }, 'transcript lines still unwritten at exit are lost');
      this.held = [];
      this.heldBytes = 0;
      this.notify({ kind: 'lost', code: this.failing ?? 'EIO', sessionId: this.opts.context.sessionId, firstLostUuid: first ?? this.stopped?.firstLostUuid });
    }
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
    if (!this.appendLine(entry, uuid)) return false;
    this.parents.set(uuid, parentUuid);
    this.last = uuid;
    return true;
  }

  /** Writes the line, or holds it while writes fail; false when it is lost (not accepted: the chain does not move). */
  private appendLine(entry: object, uuid?: string): boolean {
    if (this.stopped) return this.lose();
    const line = this.serialize(entry);
    if (line === undefined) return false;
    const buf = Buffer.from(line, 'utf8');
    // Held lines go first; a line that just failed is not tried again in the same call.
    const justFailed = this.held.length === 0 && !this.tryWrite(buf, uuid);
    if (this.held.length === 0 && !justFailed) return true;
    if (this.stopped) return this.lose(); // the file cannot be used at all (tryWrite said so)
    if (this.heldBytes + buf.length > (this.opts.maxHeldBytes ?? DEFAULT_MAX_HELD_BYTES)) {
      // Holding more would grow without bound while the disk stays full: from this line on, the transcript stops.
      const code = this.failing ?? 'EIO';
      this.stopped = { code, firstLostUuid: uuid };
      this.opts.logger.error({ path: this.opts.path, held_bytes: this.heldBytes }, 'transcript lines held while writes fail passed their bound; nothing more is recorded');
      this.lose();
      this.notify({ kind: 'lost', code, sessionId: this.opts.context.sessionId, firstLostUuid: uuid });
      return false;
    }
    this.held.push({ buf, uuid });
    this.heldBytes += buf.length;
    this.heldInEpisode++;
    if (!justFailed) this.release();
    return true;
  }

  /** Appends held lines in order while writes succeed; says so once they are all in. */
  private release(): void {
    let written = 0;
    for (const h of this.held) {
      if (!this.tryWrite(h.buf, h.uuid)) break;
      this.heldBytes -= h.buf.length;
      written++;
    }
    this.held.splice(0, written);
    if (this.held.length) return;
    if (this.failing !== undefined) {
      const lines = this.heldInEpisode;
      this.failing = undefined;
      this.heldInEpisode = 0;
      this.opts.logger.warn({ path: this.opts.path, lines }, 'transcript writes succeed again; the held lines were appended');
      this.notify({ kind: 'recovered', sessionId: this.opts.context.sessionId, path: this.opts.path, lines });
    }
  }

  /** One whole line into the file, or false (and the file cut back to its last whole line). */
  private tryWrite(buf: Buffer, uuid: string | undefined): boolean {
    const fd = this.ensureOpen(uuid);
    if (fd === undefined) return false;
    const write = this.opts.io?.writeSync ?? writeSync;
    let off = 0;
    try {
      if (this.torn) {
        ftruncateSync(fd, this.size);
        this.torn = false;
      }
      while (off < buf.length) off += write(fd, buf, off, buf.length - off);
      this.size += buf.length;
      return true;
    } catch (err) {
      // Part of the line may be in the file: cut it back to the last whole record, now or before the next write.
      // (Should the process end first, the torn line is the last one, which readers skip and the next run ends.)
      if (off > 0 || this.torn) {
        try {
          ftruncateSync(fd, this.size);
          this.torn = false;
        } catch (e) {
          this.torn = true;
          this.opts.logger.error({ err: e, path: this.opts.path }, 'could not cut a partly written transcript line back yet');
        }
      }
      this.failed(err, uuid);
      return false;
    }
  }

  /**
   * A failed write or open of the line holding `uuid`: held and retried if the error may pass; else the transcript
   * stops for good, and what was held is lost with it.
   */
  private failed(err: unknown, uuid: string | undefined): void {
    const code = codeOf(err);
    if (!TRANSIENT.has(code)) {
      if (this.stopped) return;
      const firstLostUuid = this.held.find((h) => h.uuid !== undefined)?.uuid ?? uuid;
      this.stopped = { code, firstLostUuid };
      this.lost += this.held.length;
      this.held = [];
      this.heldBytes = 0;
      this.opts.logger.error({ err, path: this.opts.path }, 'the transcript cannot be written; the session will not be saved from here on');
      this.notify({ kind: 'lost', code, sessionId: this.opts.context.sessionId, firstLostUuid });
      return;
    }
    if (this.failing !== undefined) return;
    this.failing = code;
    this.opts.logger.error({ err, path: this.opts.path }, 'transcript write failed; lines are held in memory and appended when writes succeed again');
    this.notify({ kind: 'failing', code, sessionId: this.opts.context.sessionId, path: this.opts.path });
  }

  private notify(t: TranscriptTrouble): void {
    try {
      this.opts.onTrouble?.(t);
    } catch (e) {
      this.opts.logger.error({ err: e }, 'transcript trouble notice failed');
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

  /** Opens lazily: a session that never records anything leaves no file behind. Retried after a failure that may pass. */
  private ensureOpen(uuid: string | undefined): number | undefined {
    if (this.fd !== undefined) return this.fd;
    if (this.stopped) return undefined;
    try {
      mkdirSync(dirname(this.opts.path), { recursive: true, mode: 0o700 });
      const fd = openSync(this.opts.path, 'a+', 0o600);
      try {
        this.terminateTornLine(fd);
        this.size = fstatSync(fd).size;
      } catch (err) {
        closeSync(fd);
        throw err;
      }
      this.fd = fd;
      return fd;
    } catch (err) {
      this.failed(err, uuid);
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
