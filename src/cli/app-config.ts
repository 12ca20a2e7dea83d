// The configuration side of the composition root: resolves flags, environment and settings files into the one
// AppConfig (src/config) and says once, on stderr, what it did not use.
import type { Logger } from '../log/logger.js';
import { type AppConfig, resolveConfig } from '../config/config.js';
import type { CliOptions } from './options.js';
import { readTrustStore, trustStorePath } from '../config/trust.js';

export function configFrom(opts: CliOptions, io: { env: Readonly<Record<string, string | undefined>>; cwd: string }, logger: Logger): AppConfig {
  const config = resolveConfig({
    flags: {
      model: opts.model,
      permissionMode: opts.permissionMode,
      allowDangerouslySkipPermissions: opts.allowDangerouslySkipPermissions,
      allowedTools: opts.allowedTools,
      disallowedTools: opts.disallowedTools,
      addDirs: opts.addDirs,
      settingSources: opts.settingSources,
      settings: opts.settings,
      managedSettings: opts.managedSettings,
      request: { thinking: opts.thinking, maxThinkingTokens: opts.maxThinkingTokens, thinkingDisplay: opts.thinkingDisplay, effort: opts.effort, verbose: opts.verbose, outputFormat: opts.outputFormat },
    },
    env: io.env,
    cwd: io.cwd,
    trust: (configDir) => readTrustStore(trustStorePath(configDir)),
    warnRule: (rule, file) => logger.warn({ rule, file }, 'invalid setting ignored'),
  });
  const s = config.settings;
  for (const p of s.problems) logger.warn({ file: p.file }, `settings file skipped: ${p.message}`);
  // Once per file and key (the list is built once per start).
  for (const u of s.unsupported) logger.warn({ file: u.file, key: u.key }, 'settings key not implemented by agentd; ignored');
  const r = config.model.refused;
  if (r) logger.warn({ model: r.name, from: r.from, using: config.model.initial.model }, 'model not in availableModels; the session starts on the default model (as Claude Code)');
  // A restriction of the wrong type is read fail-closed (model/model-allowlist.ts), and said.
  for (const w of s.typeWarnings) logger.warn({ file: w.file, key: w.key }, w.message);
  if (config.ignored.length) {
    logger.warn(
      { ignored: config.ignored },
      'settings not honoured: repository files cannot grant shell or write access the host did not give (use --settings, --allowedTools or the user settings), and the managed policy locks what it locks',
    );
  }
  return config;
}
