// Opening a session for the CLI: a new one, a resumed one (--resume / --continue, optionally cut with
// --resume-session-at), or a fork (--fork-session) copied into a new id. Synchronous: it runs once at start-up,
// before the daemon serves anything, and a failure must stop start-up with a typed error.
import { type Stats, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log/logger.js';
import type { ApiMessage } from '../model/types.js';
import type { ModelUsageTotals } from '../thread/events.js';
import { isUuid } from '../util/ids.js';
import { type EntryContext, TRANSCRIPT_VERSION } from './entries.js';
import { SessionLoadError } from './errors.js';
import { CUT_BY_RESUME_AT, KILLED_MID_TOOL, type TailRepair, indexResults, rebuildHistory } from './history.js';
import { type ChainNode, type ParsedTranscript, type Relink, applyRewinds, chainTo, defaultLeaf, parseTranscript } from './reader.js';
import { canonicalProjectPath, entrypointFrom, projectDir } from './paths.js';
import { type ClosableRecorder, type TranscriptTrouble, TranscriptWriter, type TranscriptWriterOptions } from './writer.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface LoadedSession {
  sessionId: string;
  path: string;
  history: ApiMessage[];
  /** The entries the history came from, in file order: the chain plus results recovered off it (a fork copies these). */
  entries: ChainNode[];
  /** Where new entries attach: the last entry of the chain (before any repair is recorded). */
  lastUuid: string;
  modelUsage: Record<string, ModelUsageTotals>;
  /** Synthetic results the history got for tool calls that never finished; not yet written to the file. */
  tailRepairs: TailRepair[];
  warnings: string[];
  /** Entries whose parent link was broken, and where they were attached instead (store/reader.ts chainTo). */
  relinks: Relink[];
}

export interface LoadOptions {
  env?: Env;
  /** `--resume-session-at`: keep the chain only up to and including this entry. */
  resumeAt?: string;
}

function readTranscript(path: string, sessionId: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? String(err.code) : '';
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new SessionLoadError('not_found', `No conversation found with session ID: ${sessionId}`, { sessionId, path });
    throw new SessionLoadError('unreadable', `Cannot read the transcript of session ${sessionId} (${path}): ${err instanceof Error ? err.message : String(err)}`, {
      sessionId,
      path,
      cause: err,
    });
  }
}

/** Looks for `<id>.jsonl` in the other project directories, to say where a not-found session lives. */
function elsewhere(root: string, sessionId: string, except: string): string | undefined {
  let dirs: string[];
  try {
    dirs = readdirSync(join(root, 'projects'));
  } catch {
    return undefined;
  }
  for (const d of dirs) {
    const p = join(root, 'projects', d, `${sessionId}.jsonl`);
    if (p === except) continue;
    try {
      if (statSync(p).isFile()) return p;
    } catch {
      // not there
    }
  }
  return undefined;
}

/** Reads a session of this project and rebuilds its conversation. Throws SessionLoadError, never returns "fresh". */
export function loadSession(root: string, cwd: string, sessionId: string, opts: LoadOptions = {}): LoadedSession {
  if (!isUuid(sessionId)) throw new SessionLoadError('invalid_id', `--resume needs a session ID (a UUID), got ${JSON.stringify(sessionId)}.`, { sessionId });
  const path = join(projectDir(root, cwd, opts.env), `${sessionId}.jsonl`);
  let buf: Buffer;
  try {
    buf = readTranscript(path, sessionId);
  } catch (err) {
    if (err instanceof SessionLoadError && err.code === 'not_found') {
      const other = elsewhere(root, sessionId, path);
      if (other) throw new SessionLoadError('not_found', `Session ${sessionId} belongs to another directory (${other}); resume it from there.`, { sessionId, path: other });
    }
    throw err;
  }
  const parsed = parseTranscript(buf);
  return fromParsed(parsed, sessionId, path, opts.resumeAt);
}

function fromParsed(parsed: ParsedTranscript, sessionId: string, path: string, resumeAt: string | undefined): LoadedSession {
  const warnings = [...parsed.warnings];
  let leaf: ChainNode | undefined;
  if (resumeAt !== undefined) {
    leaf = parsed.byUuid.get(resumeAt);
    if (!leaf) throw new SessionLoadError('message_not_found', `No message found with message.uuid of: ${resumeAt}`, { sessionId, path });
  } else {
    leaf = defaultLeaf(parsed);
    if (!leaf) throw new SessionLoadError('empty', `Session ${sessionId} has no conversation to resume (${path}).`, { sessionId, path });
  }
  const relinks: Relink[] = [];
  const chain = applyRewinds(chainTo(parsed, leaf, warnings, relinks), warnings);
  // Results written after a --resume-session-at point are what the cut drops; do not recover them.
  const cutoff = leaf.index;
  const offChainResults = indexResults(resumeAt === undefined ? parsed.nodes : parsed.nodes.filter((n) => n.index <= cutoff));
  const rebuilt = rebuildHistory(chain, { offChainResults, repairText: resumeAt === undefined ? KILLED_MID_TOOL : CUT_BY_RESUME_AT });
  warnings.push(...rebuilt.warnings);
  const entries = rebuilt.recovered.size ? [...chain, ...parsed.nodes.filter((n) => rebuilt.recovered.has(n.uuid))].sort((a, b) => a.index - b.index) : chain;
  return {
    sessionId,
    path,
    history: rebuilt.history,
    entries,
    lastUuid: leaf.uuid,
    modelUsage: parsed.modelUsage ?? {},
    tailRepairs: rebuilt.tailRepairs,
    warnings,
    relinks,
  };
}

/** The most recently modified session of this project that has a conversation (`--continue`). */
export function findLatestSession(root: string, cwd: string, env: Env = {}): { sessionId: string; path: string } | undefined {
  const dir = projectDir(root, cwd, env);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const candidates: Array<{ sessionId: string; path: string; mtimeMs: number }> = [];
  for (const name of names) {
    if (!name.endsWith('.jsonl')) continue;
    const sessionId = name.slice(0, -'.jsonl'.length);
    if (!isUuid(sessionId)) continue;
    const path = join(dir, name);
    let st: Stats;
    try {
      st = statSync(path);
    } catch {
      continue;
    }
    if (st.isFile()) candidates.push({ sessionId, path, mtimeMs: st.mtimeMs });
  }
  candidates.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.sessionId < b.sessionId ? 1 : -1));
  for (const c of candidates) {
    try {
      if (defaultLeaf(parseTranscript(readFileSync(c.path)))) return { sessionId: c.sessionId, path: c.path };
    } catch {
      // unreadable: try the next one
    }
  }
  return undefined;
}

/**
 * A fork's copy of a session's entries, as the SDK's forkSession makes it: fresh uuids, the new session id, and
 * `forkedFrom` naming the original entry. The copy is one linear chain in file order (agentd's own layout), so
 * results Claude Code hung off the chain are on it in the fork. Returns the entries and the old → new uuid map.
 */
export function forkEntries(
  nodes: readonly ChainNode[],
  from: { sessionId: string },
  to: { sessionId: string },
  newUuid: () => string,
): { entries: Array<Record<string, unknown> & { uuid: string; parentUuid: string | null }>; uuids: Map<string, string> } {
  const uuids = new Map<string, string>();
  for (const n of nodes) uuids.set(n.uuid, newUuid());
  let parent: string | null = null;
  const entries = nodes.map((n) => {
    const uuid = uuids.get(n.uuid) ?? newUuid();
    const src = n.raw['sourceToolAssistantUUID'];
    const entry = {
      ...n.raw,
      uuid,
      parentUuid: parent,
      sessionId: to.sessionId,
      ...(typeof src === 'string' && uuids.has(src) ? { sourceToolAssistantUUID: uuids.get(src) } : {}),
      forkedFrom: { sessionId: from.sessionId, messageUuid: n.uuid },
    };
    parent = uuid;
    return entry;
  });
  return { entries, uuids };
}

export interface OpenSessionOptions {
  /** `claudeConfigRoot(env)`. */
  root: string;
  cwd: string;
  env: Env;
  /** `--session-id`: the id of a new session, or of the fork. */
  sessionId?: string;
  /** `--resume <id>`. */
  resume?: string;
  /** `--continue`. */
  continue?: boolean;
  /** `--fork-session`. */
  fork?: boolean;
  /** `--resume-session-at <uuid>`. */
  resumeAt?: string;
  /** false: `--no-session-persistence` (a resume still reads; nothing is written). */
  persist: boolean;
  now: () => number;
  newUuid: () => string;
  logger: Logger;
  /** The session's cumulative usage, saved at each flush (late-bound: `() => session.ledger.modelUsage()`). */
  usage?: () => Record<string, ModelUsageTotals>;
  /** A transcript's (or a sidechain's) troubles: failing writes, their recovery, lines lost (see TranscriptTrouble). */
  onTrouble?: (t: TranscriptTrouble) => void;
  /** Removes agentd's secret values from transcript lines. */
  redact?: (line: string) => string;
  /** The write call of every transcript (the test-only disk-full fault: cli/fatal.ts transcriptTestFault). */
  io?: TranscriptWriterOptions['io'];
}

export interface OpenedSession {
  sessionId: string;
  history: ApiMessage[];
  recorder: ClosableRecorder;
  /** For `session.ledger.restore(...)`: a resumed session continues total_cost_usd/modelUsage (a fork does not). */
  restoredModelUsage: Record<string, ModelUsageTotals>;
  /** Where the transcript is (hook inputs' `transcript_path`); with --no-session-persistence, where it would be. */
  transcriptPath: string;
  /** false with --no-session-persistence: nothing is written. */
  persisted: boolean;
  /** The session the history came from (resume, continue, fork), if any. */
  resumedFrom: string | undefined;
  warnings: string[];
  /**
   * A resume's broken parent links, repaired in memory (the host is told: system/agentd_transcript_relinked), and
   * the transcript they are in (the source of a fork).
   */
  relinked: { path: string; links: Relink[] } | undefined;
  /**
   * A subagent's transcript, as Claude Code 2.1.x lays it out: `<project>/<session>/subagents/agent-<id>.jsonl`,
   * entries with `isSidechain: true` and `agentId`, their own parentUuid chain from null.
   */
  openSidechain(agentId: string): ClosableRecorder;
}

const closableNull: ClosableRecorder = { record: () => undefined, flush: async () => undefined, close: () => undefined, recordTitle: () => undefined, linesLost: 0 };

export function openSession(o: OpenSessionOptions): OpenedSession {
  const cwd = canonicalProjectPath(o.cwd);
  const dir = projectDir(o.root, cwd, o.env);
  const context = (sessionId: string): EntryContext => ({
    sessionId,
    cwd,
    entrypoint: entrypointFrom(o.env),
    version: TRANSCRIPT_VERSION,
  });
  const writer = (sessionId: string, parentUuid: string | null, savedUsage?: Record<string, ModelUsageTotals>): TranscriptWriter =>
    new TranscriptWriter({
      path: join(dir, `${sessionId}.jsonl`),
      context: context(sessionId),
      parentUuid,
      now: o.now,
      logger: o.logger,
      ...(o.usage ? { usage: o.usage } : {}),
      ...(savedUsage ? { savedUsage } : {}),
      ...(o.onTrouble ? { onTrouble: o.onTrouble } : {}),
      ...(o.io ? { io: o.io } : {}),
      ...(o.redact ? { redact: o.redact } : {}),
    });
  const sidechains = (sessionId: string) => (agentId: string): ClosableRecorder =>
    o.persist
      ? new TranscriptWriter({
          path: join(dir, sessionId, 'subagents', `agent-${agentId}.jsonl`),
          context: { ...context(sessionId), agentId },
          parentUuid: null,
          now: o.now,
          logger: o.logger,
          sidechain: true,
          ...(o.onTrouble ? { onTrouble: o.onTrouble } : {}),
          ...(o.io ? { io: o.io } : {}),
          ...(o.redact ? { redact: o.redact } : {}),
        })
      : closableNull;
  if (o.sessionId !== undefined && !isUuid(o.sessionId)) {
    throw new SessionLoadError('invalid_id', `--session-id must be a UUID, got ${JSON.stringify(o.sessionId)}.`, { sessionId: o.sessionId });
  }
  const refuseTaken = (sessionId: string): void => {
    if (!o.persist) return;
    const path = join(dir, `${sessionId}.jsonl`);
    let taken = false;
    try {
      taken = statSync(path).size > 0;
    } catch {
      taken = false;
    }
    if (taken) throw new SessionLoadError('in_use', `Session ID ${sessionId} is already in use.`, { sessionId, path });
  };

  let sourceId = o.resume;
  if (sourceId === undefined && o.continue) {
    sourceId = findLatestSession(o.root, cwd, o.env)?.sessionId;
    if (sourceId === undefined) throw new SessionLoadError('not_found', `No conversation found to continue in ${cwd}.`);
  }

  if (sourceId === undefined) {
    const sessionId = o.sessionId ?? o.newUuid();
    refuseTaken(sessionId);
    return {
      sessionId,
      history: [],
      recorder: o.persist ? writer(sessionId, null) : closableNull,
      restoredModelUsage: {},
      transcriptPath: join(dir, `${sessionId}.jsonl`),
      persisted: o.persist,
      resumedFrom: undefined,
      warnings: [],
      relinked: undefined,
      openSidechain: sidechains(sessionId),
    };
  }

  const loaded = loadSession(o.root, cwd, sourceId, { env: o.env, ...(o.resumeAt !== undefined ? { resumeAt: o.resumeAt } : {}) });
  for (const w of loaded.warnings) o.logger.warn({ sessionId: sourceId, path: loaded.path }, `transcript: ${w}`);

  if (!o.fork) {
    const recorder = o.persist ? writer(sourceId, loaded.lastUuid, loaded.modelUsage) : closableNull;
    if (recorder instanceof TranscriptWriter) recordRepairs(recorder, loaded.tailRepairs, o.newUuid, (u) => u);
    return {
      sessionId: sourceId,
      history: loaded.history,
      recorder,
      restoredModelUsage: loaded.modelUsage,
      transcriptPath: loaded.path,
      persisted: o.persist,
      resumedFrom: sourceId,
      warnings: loaded.warnings,
      relinked: loaded.relinks.length ? { path: loaded.path, links: loaded.relinks } : undefined,
      openSidechain: sidechains(sourceId),
    };
  }

  const sessionId = o.sessionId ?? o.newUuid();
  refuseTaken(sessionId);
  let recorder: ClosableRecorder = closableNull;
  if (o.persist) {
    // Written now, not on the first new entry: the fork must be resumable (and listed) right away.
    const { entries, uuids } = forkEntries(loaded.entries, { sessionId: sourceId }, { sessionId }, o.newUuid);
    const w = writer(sessionId, null);
    w.appendCopied(entries);
    recordRepairs(w, loaded.tailRepairs, o.newUuid, (u) => uuids.get(u) ?? u);
    recorder = w;
  }
  return {
    sessionId,
    history: loaded.history,
    recorder,
    restoredModelUsage: {},
    transcriptPath: join(dir, `${sessionId}.jsonl`),
    persisted: o.persist,
    resumedFrom: sourceId,
    warnings: loaded.warnings,
    relinked: loaded.relinks.length ? { path: loaded.path, links: loaded.relinks } : undefined,
    openSidechain: sidechains(sessionId),
  };
}

/** Writes the synthetic results the history got, so the file and the conversation agree from here on. */
function recordRepairs(w: TranscriptWriter, repairs: readonly TailRepair[], newUuid: () => string, mapUuid: (u: string) => string): void {
  for (const r of repairs) {
    if (r.assistantUuid) w.rememberToolUse(r.toolUse.id, mapUuid(r.assistantUuid));
    w.record({
      type: 'tool_result',
      uuid: newUuid(),
      toolUseId: r.toolUse.id,
      toolName: r.toolUse.name,
      block: r.block,
      data: `Error: ${typeof r.block.content === 'string' ? r.block.content : ''}`,
      outcome: 'cancelled',
    });
  }
}
