// agentd's entry point: claim stdout, parse flags, start the app, map signals to exit codes.
import { PROTOCOL_LEVEL } from '../../protocol/src/index.js';
import { createLogger, type Logger } from '../log/logger.js';
import { secretValues } from '../tools/environment.js';
import { AbortReason } from '../util/abort.js';
import { newUuid } from '../util/ids.js';
import { startApp } from './app.js';
import { EXIT } from './exit-codes.js';
import { FLAGS, parseArgv } from './flags.js';
import { helpText, versionLine } from './help.js';
import { type CliOptions, StartupError, resolveOptions } from './options.js';
import { claimStdout } from './stdio.js';

function fatalLine(stdout: NodeJS.WritableStream, useResultFrame: boolean, reason: string, message: string, code: number): void {
  // One JSON line. For stream-json hosts it is a zeroed error result, which the SDKs surface as the error text.
  const line = useResultFrame
    ? {
        type: 'result',
        subtype: 'error_during_execution',
        is_error: true,
        duration_ms: 0,
        duration_api_ms: 0,
        num_turns: 0,
        stop_reason: null,
        total_cost_usd: 0,
        usage: {
          input_tokens: 0,
          output_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
          service_tier: 'standard',
          cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
        },
        modelUsage: {},
        permission_denials: [],
        errors: [message],
        startup_failure_reason: reason,
        agentd_error: { category: 'startup', retryable: false, status: null },
        uuid: newUuid(),
        session_id: '',
      }
    : { type: 'error', error_code: reason, message, exit_code: code };
  stdout.write(`${JSON.stringify(line)}\n`);
}

export async function main(argv: readonly string[]): Promise<void> {
  const stdout = claimStdout();
  const parsed = parseArgv(argv);
  const env = process.env;
  let opts: CliOptions;
  try {
    opts = resolveOptions(parsed, env);
  } catch (e) {
    if (!(e instanceof StartupError)) throw e;
    const streamy = parsed.values.get('output-format')?.includes('stream-json') || parsed.values.get('input-format')?.includes('stream-json');
    fatalLine(streamy ? stdout : process.stderr, true, e.reason, e.message, EXIT.startup);
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

  let app;
  try {
    app = startApp(opts, { stdin: process.stdin, stdout, env, cwd: process.cwd(), logger });
  } catch (e) {
    if (!(e instanceof StartupError)) throw e;
    logger.error({ reason: e.reason }, e.message);
    fatalLine(opts.outputFormat === 'stream-json' ? stdout : process.stderr, opts.outputFormat === 'stream-json', e.reason, e.message, EXIT.startup);
    logger.flush();
    process.exitCode = EXIT.startup;
    return;
  }
  // Whatever the exit path (a normal end, a signal, host loss, a crash through entry.ts's process.exit), no tool
  // process outlives the daemon, not even one that left its process group.
  process.once('exit', () => app.killToolsNow());
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
