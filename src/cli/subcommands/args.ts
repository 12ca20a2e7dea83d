// A strict little option parser for subcommands (Claude Code's subcommands reject unknown options; so do these).
import { UsageError } from './types.js';

export interface SubArgs {
  flags: Set<string>;
  values: Map<string, string>;
  positionals: string[];
}

/**
 * `booleans` and `strings` are long names without dashes; `-h` is always `--help`. `--x=v` and `--x v` both work
 * for strings. Anything else starting with `-` is a usage error.
 */
export function parseSubArgs(args: readonly string[], spec: { booleans?: readonly string[]; strings?: readonly string[] } = {}): SubArgs {
  const booleans = new Set(['help', ...(spec.booleans ?? [])]);
  const strings = new Set(spec.strings ?? []);
  const out: SubArgs = { flags: new Set(), values: new Map(), positionals: [] };
  for (let i = 0; i < args.length; i++) {
    const tok = args[i] as string;
    if (tok === '--') {
      out.positionals.push(...args.slice(i + 1));
      break;
    }
    if (tok === '-h') {
      out.flags.add('help');
      continue;
    }
    if (!tok.startsWith('--') || tok === '-') {
      if (tok.startsWith('-') && tok !== '-') throw new UsageError(`unknown option '${tok}'`);
      out.positionals.push(tok);
      continue;
    }
    const eq = tok.indexOf('=');
    const name = eq === -1 ? tok.slice(2) : tok.slice(2, eq);
    if (booleans.has(name) && eq === -1) {
      out.flags.add(name);
    } else if (strings.has(name)) {
      const v = eq === -1 ? args[++i] : tok.slice(eq + 1);
      if (v === undefined) throw new UsageError(`option '--${name} <value>' argument missing`);
      out.values.set(name, v);
    } else {
      throw new UsageError(`unknown option '${tok}'`);
    }
  }
  return out;
}
