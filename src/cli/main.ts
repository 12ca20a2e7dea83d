// agentd's entry point: claim stdout, parse flags, start the app, map signals to exit codes.
import { homedir } from 'node:os';
import { PROTOCOL_LEVEL } from '../../protocol/src/runtime.js';
import { createLogger, type Logger } from '../log/logger.js';
import { secretValues } from '../tools/environment.js';
import { AbortReason } from '../util/abort.js';
import { type RunningApp, startApp } from './app.js';
import { EXIT } from './exit-codes.js';
import { injectTestFault, installFatalHandlers } from './fatal.js';
import { FLAGS, parseArgv } from './flags.js';
import { helpText, versionLine } from './help.js';
import { readAll } from './app-support.js';
import { type CliOptions, StartupError, needsPromptFromStdin, resolveOptions } from './options.js';
import { claimStdout } from './stdio.js';
import { startupFailure } from './startup-failure.js';
import { findSubcommand, runSubcommand } from './subcommands/index.js';

type OutputFormat = CliOptions['outputFormat'];

/** The output format asked for, read leniently (for reporting a failure of the flags themselves). */
function requestedFormat(parsed: ReturnType<typeof parseArgv>): OutputFormat {
  const out = parsed.values.get('output-format')?.at(-1);
  if (out === 'text' || out === 'json' || out === 'stream-json') return out;
  return parsed.values.get('input-format')?.at(-1) === 'stream-json' ? 'stream-json' : 'text';
}

export async function main(argv: readonly string[]): Promise<void> {
  const stdout = claimStdout();
  const parsed = parseArgv(argv);
  const env = process.env;
  // Subcommands first: answered locally, before any session, transcript or model exists.
  const call = findSubcommand(argv, parsed);
  if (call) {
    if (call.word === 'help' && call.args.length === 0) {
      stdout.write(helpText());
      return;
    }
    process.exitCode = await runSubcommand(call, { stdout, stdin: process.stdin, stderr: process.stderr, env, cwd: process.cwd(), home: homedir(), globalArgs: call.globalArgs });
    return;
  }
  let opts: CliOptions;
  try {
    opts = resolveOptions(parsed, env);
    if (!opts.showHelp && !opts.showVersion && needsPromptFromStdin(opts)) {
      // One-shot mode without a prompt argument: the prompt is stdin, read before a session exists, so an empty
      // one (or a terminal, where nobody is going to type a prompt for a headless daemon) starts nothing.
      if (process.stdin.isTTY) {
        throw new StartupError(
          'no_input',
          'nothing to do: agentd is a headless daemon. Run agentd -p "prompt" (or pipe a prompt on stdin), or let an Agent SDK start it with --input-format stream-json; agentd --help has the rest.',
        );
      }
      const prompt = await readAll(process.stdin);
      if (prompt === '') throw new StartupError('empty_prompt', 'The prompt is empty: give -p a prompt argument or pipe one on stdin.');
      opts = { ...opts, prompt };
    }
  } catch (e) {
    if (!(e instanceof StartupError)) throw e;
    startupFailure(stdout, requestedFormat(parsed), e);
    process.exitCode = EXIT.startup;
    return;
  }
  if (opts.showVersion) {
    stdout.write(`${versionLine()}\n`);
    return;
  }
  if (opts.showHelp) {
    stdout.write(helpText());
    return;
  }
  const logger: Logger = createLogger({
    level: opts.logLevel,
    ...(opts.debugFile ? { file: opts.debugFile } : {}),
    secrets: secretValues(env),
  });
  for (const name of parsed.unknown) logger.warn({ flag: name }, 'unknown flag ignored');
  const warned = new Set<string>();
  for (const f of FLAGS) {
    if (f.status === 'no' && parsed.values.has(f.name) && !warned.has(f.name)) {
      warned.add(f.name);
      logger.warn({ flag: f.name }, 'flag accepted but not implemented yet; it has no effect');
    }
  }
  logger.debug({ protocol: PROTOCOL_LEVEL, argv }, 'agentd starting');

  const started: { app?: RunningApp } = {};
  // From here on an error that escapes every handler ends the daemon with an internal_error frame and exit 70.
  const fatal = installFatalHandlers({
    reportInternal: (message) => started.app?.reportInternal(message) ?? Promise.resolve(),
    log: (err, origin) => {
      logger.fatal({ err, origin }, 'internal error: exiting');
      logger.flush();
    },
  });
  injectTestFault(env['AGENTD_TEST_FAULT']);
  let app;
  try {
    app = startApp(opts, { stdin: process.stdin, stdout, env, cwd: process.cwd(), logger, fatal: fatal.fail });
  } catch (e) {
    if (!(e instanceof StartupError)) throw e;
    logger.debug({ reason: e.reason }, e.message);
    startupFailure(stdout, opts.outputFormat, e);
    logger.flush();
    process.exitCode = EXIT.startup;
    return;
  }
  started.app = app;
  // Whatever the exit path (a normal end, a signal, host loss, a crash through entry.ts's process.exit), no tool
  // process outlives the daemon, not even one that left its process group, and no temporary folder stays behind.
  process.once('exit', () => app.exitNow());
  const onSignal = (sig: 'SIGTERM' | 'SIGINT' | 'SIGHUP', code: number) => () => {
    logger.info({ signal: sig }, 'signal received: shutting down');
    app.shutdown(code, new AbortReason('shutdown', `Received ${sig}`));
  };
  process.on('SIGTERM', onSignal('SIGTERM', EXIT.sigterm));
  process.on('SIGINT', onSignal('SIGINT', EXIT.sigint));
  process.on('SIGHUP', onSignal('SIGHUP', EXIT.sighup));
  // Parent death: if we get re-parented, the host is gone (Claude Code keeps its tools running here). The
  // SDKs start agentd themselves, so this is how their death is noticed; getppid() every 100 ms costs nothing.
  const ppid = process.ppid;
  if (ppid > 1) {
    const t = setInterval(() => {
      if (process.ppid !== ppid) app.shutdown(EXIT.hostGone, new AbortReason('host_gone'));
    }, 100);
    t.unref();
  }
  const code = await app.exit;
  logger.flush();
  process.exit(code);
}
