// The daemon's last line of defence: an error that escaped every handler (an unhandled rejection or an uncaught
// exception, which is a bug) ends the daemon with EXIT.internal after one system/internal_error frame, instead
// of Node's default exit 1 (the code reserved for a failed -p turn) with nothing on stdout.
import { existsSync, writeSync } from 'node:fs';
import { EXIT } from './exit-codes.js';

export interface FatalTarget {
  /** Writes the internal_error frame and flushes stdout; bounded by the caller. */
  reportInternal(message: string): Promise<void>;
  /** Logs the error (stderr). */
  log(err: unknown, origin: string): void;
}

/** How long the final frame may take to reach stdout before the process exits anyway. */
const FLUSH_LIMIT_MS = 1000;

export function describeError(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : `non-Error value thrown: ${String(err)}`;
}

/**
 * Installs the process-wide handlers. The first fatal error writes the frame and exits; one that happens while
 * doing so exits at once (the frame is best effort, the exit code is not).
 */
export interface FatalHandlers {
  /** The same path for an error a caller caught but cannot handle (e.g. the stdin loop's). */
  fail: (err: unknown, origin: string) => void;
  uninstall: () => void;
}

export function installFatalHandlers(target: FatalTarget, exit: (code: number) => never = (c) => process.exit(c)): FatalHandlers {
  let failing = false;
  const onFatal = (err: unknown, origin: string): void => {
    if (failing) exit(EXIT.internal);
    failing = true;
    try {
      target.log(err, origin);
    } catch {
      // logging is best effort here
    }
    setTimeout(() => exit(EXIT.internal), FLUSH_LIMIT_MS);
    target.reportInternal(describeError(err)).then(
      () => exit(EXIT.internal),
      () => exit(EXIT.internal),
    );
  };
  const onException = (err: Error, origin: string): void => onFatal(err, origin);
  const onRejection = (reason: unknown): void => onFatal(reason, 'unhandledRejection');
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return {
    fail: onFatal,
    uninstall: () => {
      process.off('uncaughtException', onException);
      process.off('unhandledRejection', onRejection);
    },
  };
}

/**
 * Test-only fault injection (AGENTD_TEST_FAULT, documented as such in the README): `unhandled_rejection` or
 * `uncaught_exception` raises that error on the next timer tick, so the process test can drive the path above
 * end to end. Any other value, or none, does nothing.
 */
export function injectTestFault(value: string | undefined): void {
  if (value === 'unhandled_rejection') {
    setTimeout(() => void Promise.reject(new Error('test fault (AGENTD_TEST_FAULT)')), 0);
  } else if (value === 'uncaught_exception') {
    setTimeout(() => {
      throw new Error('test fault (AGENTD_TEST_FAULT)');
    }, 0);
  }
}

/**
 * Test-only fault injection for the transcript (AGENTD_TEST_FAULT=`transcript_enospc_while:<path>`): while
 * `<path>` exists, every write to a transcript fails with ENOSPC, as on a full disk; removing it frees the
 * space. The process tests drive a disk that fills up and frees up again through it (a tmpfs small enough needs
 * root to mount). As openSession options: none for any other value, or none (the real write is used).
 */
export function transcriptTestFault(value: string | undefined): { io?: { writeSync: typeof writeSync } } {
  const prefix = 'transcript_enospc_while:';
  if (value === undefined || !value.startsWith(prefix)) return {};
  const flag = value.slice(prefix.length);
  const write = (fd: number, buf: NodeJS.ArrayBufferView, off?: number, len?: number): number => {
    if (existsSync(flag)) throw Object.assign(new Error('ENOSPC: no space left on device, write (AGENTD_TEST_FAULT)'), { code: 'ENOSPC' });
    return writeSync(fd, buf, off, len);
  };
  return { io: { writeSync: write as typeof writeSync } };
}
