// The configuration side of the composition root: resolves flags, environment and settings files into the one
// AppConfig (src/config) and says once, on stderr, what it did not use.
import type { Logger } from '../log/logger.js';
import { type AppConfig, resolveConfig } from '../config/config.js';
import { howToTrust } from '../config/project-trust.js';
import type { SessionEvent } from '../session/events.js';
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
      trustWorkspace: opts.trustWorkspace,
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

type FileWarning = Extract<SessionEvent, { type: 'file_warning' }>;

/**
 * What the configuration did not use, as the host hears it once the session has started: each settings file that
 * was skipped, each key read at its fail-closed value, and — said once per file, also on stderr — what the untrusted repository carries that was not run
 * (hooks, env, helpers, its .mcp.json servers) with how to trust it, and the variables a trusted repository's
 * settings may not set.
 */
export function startupWarnings(config: AppConfig, withheldMcp: { file: string; names: readonly string[] } | undefined, logger: Logger): FileWarning[] {
  const out: FileWarning[] = [
    ...config.settings.problems.map((p): FileWarning => ({ type: 'file_warning', file: 'settings', message: p.message, path: p.file })),
    ...config.settings.typeWarnings.map((w): FileWarning => ({ type: 'file_warning', file: 'settings_key', message: w.message, path: w.file })),
  ];
  const trust = config.trust;
  if (trust.kind === 'untrusted') {
    const how = howToTrust(trust);
    for (const u of config.settings.untrusted) {
      const message = `${u.file}: not used, because the repository is not trusted: ${u.skipped.join(', ')}. To use them, ${how}.`;
      logger.warn({ file: u.file, skipped: u.skipped }, message);
      out.push({ type: 'file_warning', file: 'untrusted', message, path: u.file });
    }
    if (withheldMcp) {
      const message = `${withheldMcp.file}: MCP servers not started, because the repository is not trusted: ${withheldMcp.names.join(', ')}. To start them, ${how}; or approve them in your own settings (enabledMcpjsonServers, enableAllProjectMcpServers).`;
      logger.warn({ file: withheldMcp.file, servers: withheldMcp.names }, message);
      out.push({ type: 'file_warning', file: 'untrusted', message, path: withheldMcp.file });
    }
  }
  const byFile = new Map<string, string[]>();
  for (const r of config.settings.envRefused) byFile.set(r.file, [...(byFile.get(r.file) ?? []), `${r.name} (${r.why})`]);
  for (const [file, names] of byFile) {
    const message = `${file}: env variables not set: ${names.join('; ')}. A repository's settings set only variables that are data; set these in your own settings or environment if you mean them.`;
    logger.warn({ file, refused: config.settings.envRefused.filter((r) => r.file === file).map((r) => r.name) }, message);
    out.push({ type: 'file_warning', file: 'env', message, path: file });
  }
  return out;
}
