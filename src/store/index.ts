// The session store: Claude Code-compatible JSONL transcripts (write-ahead recorder, resume, continue, fork).
// The CLI needs only openSession, claudeConfigRoot and SessionLoadError; the rest is for tests and tools.
export { SessionLoadError, type SessionLoadErrorCode } from './errors.js';
export { claudeConfigRoot, entrypointFrom, projectDir, transcriptPath } from './paths.js';
export { type LoadedSession, type OpenSessionOptions, type OpenedSession, findLatestSession, forkEntries, loadSession, openSession } from './session-store.js';
export { type ClosableRecorder, type TranscriptTrouble, TranscriptWriter } from './writer.js';
