// Which Bash commands run inside the command sandbox of the `sandbox` settings, as Claude Code decides it:
//  - a command approved because it will run sandboxed (autoAllowBashIfSandboxed), or only because the shell
//    analyser judged it read-only, always runs inside: the model cannot lower that wall;
//  - `dangerouslyDisableSandbox: true` runs a command outside only while allowUnsandboxedCommands is not false
//    (such a command is never auto-allowed: it goes through the ordinary permission flow);
//  - a command any of whose simple commands matches an `excludedCommands` entry runs outside (same flow).
import type { CommandSandboxSettings } from './settings.js';

/** `docker`, `docker *` and `docker:*` all match `docker` and `docker ps …`; `npm run test` matches that prefix. */
export function matchesExcluded(entries: readonly string[], argv: readonly string[]): boolean {
  const text = argv.join(' ');
  if (text === '') return false;
  return entries.some((e) => {
    const p = e.trim().replace(/(?::\*|\s\*|\*)$/, '').trim();
    return p !== '' && (text === p || text.startsWith(`${p} `));
  });
}

export type SandboxPlacement = { inside: true } | { inside: false; why: 'dangerouslyDisableSandbox' | 'excludedCommands' };

export function placeCommand(
  s: CommandSandboxSettings,
  input: { dangerouslyDisableSandbox?: boolean | undefined },
  /** The argv of every simple command; undefined when the command could not be parsed (it then runs inside). */
  segments: ReadonlyArray<readonly string[]> | undefined,
  approvedBy: string,
): SandboxPlacement {
  if (approvedBy === 'read-only-analysis' || approvedBy === 'sandbox') return { inside: true };
  if (input.dangerouslyDisableSandbox === true && s.allowUnsandboxedCommands) return { inside: false, why: 'dangerouslyDisableSandbox' };
  if (segments?.some((argv) => matchesExcluded(s.excludedCommands, argv))) return { inside: false, why: 'excludedCommands' };
  return { inside: true };
}
