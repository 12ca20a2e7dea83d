// The only importer of pino. Logs go to stderr (or a file), never stdout, and known secret values are
// scrubbed from every line before it is written.
import pino from 'pino';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** The logging surface the rest of agentd sees: pino's, narrowed to what we use. */
export interface Logger {
  fatal(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
  trace(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
  isLevelEnabled(level: LogLevel): boolean;
  flush(): void;
}

export interface LoggerOptions {
  level: LogLevel;
  /** Write to this file instead of stderr (`--debug-file`). */
  file?: string;
  /** Secret values (API keys, tokens) that must never appear in a log line. */
  secrets: readonly string[];
  /** For tests: write here instead of fd 2. */
  stream?: NodeJS.WritableStream;
}

const REDACTED = '[REDACTED]';

/** Replaces each secret (8+ chars; shorter values are not secrets worth the false positives) in `s`. */
export function scrubSecrets(s: string, secrets: readonly string[]): string {
  let out = s;
  for (const secret of secrets) {
    if (secret.length < 8) continue;
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    // Also the JSON-escaped form, in case a secret holds characters JSON escapes.
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret && out.includes(escaped)) out = out.split(escaped).join(REDACTED);
  }
  return out;
}

export function createLogger(opts: LoggerOptions): Logger {
  const secrets = [...opts.secrets];
  const destination =
    opts.stream ??
    (opts.file
      ? pino.destination({ dest: opts.file, sync: false, mkdir: true })
      : pino.destination({ dest: 2, sync: false }));
  const logger = pino(
    {
      level: opts.level,
      base: { pid: process.pid },
      name: 'agentd',
      redact: {
        paths: ['apiKey', 'authToken', 'headers.authorization', 'headers["x-api-key"]', '*.apiKey', '*.authToken'],
        censor: REDACTED,
      },
      hooks: { streamWrite: (s: string) => (secrets.length ? scrubSecrets(s, secrets) : s) },
    },
    destination,
  );
  return wrap(logger, destination);
}

type PinoLike = pino.Logger;

function wrap(l: PinoLike, dest: unknown): Logger {
  const flush = (): void => {
    const d = dest as { flushSync?: () => void };
    try {
      d.flushSync?.();
    } catch {
      // sonic-boom throws when the fd is not ready yet; nothing was buffered then.
    }
  };
  return {
    fatal: (o, m) => l.fatal(o, m),
    error: (o, m) => l.error(o, m),
    warn: (o, m) => l.warn(o, m),
    info: (o, m) => l.info(o, m),
    debug: (o, m) => l.debug(o, m),
    trace: (o, m) => l.trace(o, m),
    child: (b) => wrap(l.child(b), dest),
    isLevelEnabled: (lvl) => l.isLevelEnabled(lvl),
    flush,
  };
}

/** A logger that drops everything, for unit tests of the core. */
export function silentLogger(): Logger {
  const noop = (): void => undefined;
  const s: Logger = {
    fatal: noop,
    error: noop,
    warn: noop,
    info: noop,
    debug: noop,
    trace: noop,
    child: () => s,
    isLevelEnabled: () => false,
    flush: noop,
  };
  return s;
}
