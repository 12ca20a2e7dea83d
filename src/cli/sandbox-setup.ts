// The command sandbox of the `sandbox` settings, set up at start-up: settings resolved (an invalid or
// unsupported value is a start-up error), the runtime started before the first stdin line is read, and when
// it cannot start while required (failIfUnavailable, agentd's default), start-up fails with
// `sandbox_required_unavailable` — nothing runs unsandboxed. Without sandbox settings nothing here loads.
import type { Logger } from '../log/logger.js';
import type { CommandSegments } from '../permissions/match.js';
import type { PermissionRule } from '../permissions/rules.js';
import { type CommandSandbox, createCommandSandbox } from '../tools/sandbox/runtime.js';
import { placeCommand } from '../tools/sandbox/policy.js';
import { resolveSandboxSettings } from '../tools/sandbox/settings.js';
import { managedDomainsOnly } from '../tools/sandbox/managed.js';
import { type RipgrepChoice, findRipgrep } from '../tools/ripgrep.js';
import { type CliOptions, StartupError } from './options.js';
import { startupFailure } from './startup-failure.js';

export interface SandboxSetup {
  sandbox: CommandSandbox | undefined;
  /** Settles once the sandbox is running (or not required); a StartupError when it is required and cannot run. */
  gate: Promise<StartupError | undefined>;
  /** For the permission layer: autoAllowBashIfSandboxed. */
  autoAllow?: (input: Record<string, unknown>, command: CommandSegments) => boolean;
}

/** The hosts of `WebFetch(domain:…)` allow rules: Claude Code lets sandboxed commands reach them too (only
 *  those of managed rules while managed settings set allowManagedDomainsOnly). */
export function webFetchAllowedDomains(rules: readonly PermissionRule[], managedOnly = false): string[] {
  return rules
    .filter((r) => r.behavior === 'allow' && r.toolName === 'WebFetch' && r.ruleContent?.startsWith('domain:') && (!managedOnly || r.source === 'policySettings'))
    .map((r) => (r.ruleContent ?? '').slice('domain:'.length).trim())
    .filter(Boolean);
}

/** `ripgrep`: how to find the rg the runtime scans with (USE_BUILTIN_RIPGREP and agentd's PATH; tools/ripgrep.ts). */
export function setUpCommandSandbox(merged: unknown, rules: readonly PermissionRule[], logger: Logger, ripgrep: RipgrepChoice): SandboxSetup {
  const r = resolveSandboxSettings(merged, webFetchAllowedDomains(rules, managedDomainsOnly(merged)));
  if (!r.ok) throw new StartupError('sandbox_settings_invalid', r.message);
  if (!r.settings) return { sandbox: undefined, gate: Promise.resolve(undefined) };
  const settings = r.settings;
  for (const note of r.notes ?? []) logger.warn({ note }, 'sandbox settings');
  // The runtime scans this process's working directory; the wrap cache fingerprints the same one.
  const sandbox = createCommandSandbox({ settings, logger, workingDirectory: () => process.cwd(), ripgrep: () => findRipgrep(ripgrep) });
  const gate = sandbox.start().then((st) => {
    if (st.state === 'active') return undefined;
    if (settings.failIfUnavailable) {
      return new StartupError(
        'sandbox_required_unavailable',
        `The sandbox is enabled (sandbox.enabled) and required, but it cannot start: ${st.reason}. On Linux it needs bubblewrap (bwrap) and socat on PATH and user namespaces (ripgrep comes with agentd); install them, or set sandbox.failIfUnavailable: false to run commands unsandboxed.`,
      );
    }
    logger.warn({ reason: st.reason }, 'sandbox unavailable: commands run unsandboxed (sandbox.failIfUnavailable is false)');
    return undefined;
  });
  const autoAllow = settings.autoAllowBashIfSandboxed
    ? (input: Record<string, unknown>, command: CommandSegments): boolean => {
        if (sandbox.current()?.state !== 'active') return false;
        const segments = command.ok ? command.segments.map((s) => s.text.split(' ')) : undefined;
        return placeCommand(settings, { dangerouslyDisableSandbox: input['dangerouslyDisableSandbox'] === true }, segments, 'none').inside;
      }
    : undefined;
  return { sandbox, gate, ...(autoAllow ? { autoAllow } : {}) };
}

/**
 * Awaits the gate; when the sandbox is required and cannot run, reports the start-up failure and says so: the
 * run then ends before stdin is read or anything runs (app.ts).
 */
export async function reportedSandboxFailure(setup: SandboxSetup, stdout: NodeJS.WritableStream, format: CliOptions['outputFormat']): Promise<boolean> {
  const failure = await setup.gate;
  if (failure) startupFailure(stdout, format, failure);
  return failure !== undefined;
}
