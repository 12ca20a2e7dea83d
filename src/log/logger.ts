// The only importer of pino. Logs go to stderr (or a file), never stdout, and known secret values are
// scrubbed from every line before it is written. pino is loaded on the first line actually logged: a normal
// start logs nothing at the default level, and start-up latency is a product feature here.
import { REDACTED, scrubSecrets } from '../util/secrets.js';
import { loadPino } from './pino-load.js';
import type pinoTypes from 'pino';

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

export { scrubSecrets };

const LEVEL_VALUES: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Number.POSITIVE_INFINITY };

type PinoLogger = pinoTypes.Logger;

interface Root {
  threshold: number;
  get(): PinoLogger;
  flush(): void;
}

export function createLogger(opts: LoggerOptions): Logger {
  const secrets = [...opts.secrets];
  let real: PinoLogger | undefined;
  let destination: { flushSync?: () => void } | undefined;
  const root: Root = {
    threshold: LEVEL_VALUES[opts.level],
    get() {
      if (real) return real;
      const pino = loadPino();
      const dest =
        opts.stream ??
        (opts.file ? pino.destination({ dest: opts.file, sync: false, mkdir: true }) : pino.destination({ dest: 2, sync: false }));
      destination = dest as { flushSync?: () => void };
      real = pino(
        {
          level: opts.level,
          base: { pid: process.pid },
          name: 'agentd',
          redact: { paths: ['apiKey', 'authToken', 'headers.authorization', 'headers["x-api-key"]', '*.apiKey', '*.authToken'], censor: REDACTED },
          hooks: { streamWrite: (s: string) => (secrets.length ? scrubSecrets(s, secrets) : s) },
        },
        dest as pinoTypes.DestinationStream,
      );
      return real;
    },
    flush() {
      try {
        destination?.flushSync?.();
      } catch {
        // sonic-boom throws when the fd is not ready yet; nothing was buffered then.
      }
    },
  };
  return new LazyLogger(root, []);
}

/** Materialises pino (and the child bindings) only when a line at an enabled level is written. */
class LazyLogger implements Logger {
  private real: PinoLogger | undefined;

  constructor(
    private readonly root: Root,
    private readonly bindings: ReadonlyArray<Record<string, unknown>>,
  ) {}

  private get(): PinoLogger {
    if (!this.real) {
      let l = this.root.get();
      for (const b of this.bindings) l = l.child(b);
      this.real = l;
    }
    return this.real;
  }

  fatal(o: object, m?: string): void {
    if (LEVEL_VALUES.fatal >= this.root.threshold) this.get().fatal(o, m);
  }
  error(o: object, m?: string): void {
    if (LEVEL_VALUES.error >= this.root.threshold) this.get().error(o, m);
  }
  warn(o: object, m?: string): void {
    if (LEVEL_VALUES.warn >= this.root.threshold) this.get().warn(o, m);
  }
  info(o: object, m?: string): void {
    if (LEVEL_VALUES.info >= this.root.threshold) this.get().info(o, m);
  }
  debug(o: object, m?: string): void {
    if (LEVEL_VALUES.debug >= this.root.threshold) this.get().debug(o, m);
  }
  trace(o: object, m?: string): void {
    if (LEVEL_VALUES.trace >= this.root.threshold) this.get().trace(o, m);
  }
  child(bindings: Record<string, unknown>): Logger {
    return new LazyLogger(this.root, [...this.bindings, bindings]);
  }
  isLevelEnabled(level: LogLevel): boolean {
    return LEVEL_VALUES[level] >= this.root.threshold;
  }
  flush(): void {
    this.root.flush();
  }
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
