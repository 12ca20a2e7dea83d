// Where one Bash command runs: plainly, in the read-only jail (AGENTD_READONLY_SANDBOX, for commands only the
// shell analyser approved), or in the command sandbox of the `sandbox` settings. One wall at a time: while
// the command sandbox runs, it is the wall for every sandboxed command, the read-only ones included (they
// get no write access there). Nothing that must be sandboxed runs without it.
import { SandboxUnavailableError, type CommandSandbox } from '../sandbox/runtime.js';
import { placeCommand } from '../sandbox/policy.js';
import type { Jailer } from '../sandbox/types.js';
import { analyzeCommand } from '../shell/analyze.js';
import { SANDBOXED_SHELL_COMMAND, sandboxedShellEnv } from '../shell/init-script.js';
import type { ToolCallContext } from '../tool.js';

export type ShellPlacement = { kind: 'plain' } | { kind: 'jail'; jailer: Jailer } | { kind: 'sandbox'; sandbox: CommandSandbox; readOnly: boolean };

export async function placeShell(input: { command: string; dangerouslyDisableSandbox?: boolean | undefined }, ctx: ToolCallContext): Promise<ShellPlacement> {
  const cs = ctx.env.commandSandbox;
  if (cs) {
    const st = await cs.start();
    if (st.state === 'active') {
      const analysis = await analyzeCommand(input.command);
      const place = placeCommand(cs.settings, input, analysis.ok ? analysis.segments.map((s) => s.argv) : undefined, ctx.approval.by);
      if (place.inside) return { kind: 'sandbox', sandbox: cs, readOnly: ctx.approval.by === 'read-only-analysis' };
      // Outside by the settings' own leave (excludedCommands, dangerouslyDisableSandbox): the permission flow
      // approved it as an unsandboxed command (it was not auto-allowed for being sandboxed).
      return { kind: 'plain' };
    }
    if (ctx.approval.by === 'sandbox' || cs.settings.failIfUnavailable) {
      throw new SandboxUnavailableError(`The sandbox is required but not running (${st.reason}); the command was not run.`);
    }
    // failIfUnavailable: false — the settings chose to run commands unsandboxed (warned at start-up).
  }
  const jailer = ctx.approval.by === 'read-only-analysis' ? await ctx.env.readOnlySandbox.jailer() : undefined;
  return jailer ? { kind: 'jail', jailer } : { kind: 'plain' };
}

/** The argv and environment that run `script` (with the shell environment `env`) inside the command sandbox;
 *  `release` once the process has exited, then `violations` says what the sandbox refused it. */
export async function sandboxedShell(
  p: Extract<ShellPlacement, { kind: 'sandbox' }>,
  req: { script: string; env: Record<string, string>; ctx: ToolCallContext; projectDir: string | undefined; writableFiles: readonly string[] },
): Promise<{ argv: string[]; env: Record<string, string>; release: () => void; violations: () => string[] }> {
  const { ctx } = req;
  const writableDirs = [req.projectDir ?? ctx.shared.cwd, ctx.shared.cwd, ...ctx.shared.additionalDirectories];
  const w = await p.sandbox.wrap({ script: SANDBOXED_SHELL_COMMAND, cwd: ctx.shared.cwd, writableDirs, writableFiles: req.writableFiles, readOnly: p.readOnly, signal: ctx.signal });
  const env = sandboxedShellEnv(req.env, req.script);
  // The credentials' variables never reach the sandbox from this side: the runtime sets the masked ones itself.
  for (const name of w.withheldEnv) delete env[name];
  return { argv: w.argv, env, release: w.release, violations: w.violations };
}
