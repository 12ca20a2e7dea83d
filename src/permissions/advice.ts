// What the host is offered with an "ask" (suggestions: permission updates that would allow the call) and what a
// non-interactive denial says would allow it.
import type { PermissionSubject } from '../tools/tool.js';
import type { CommandSegments } from './match.js';
import type { PermissionModeName } from './modes.js';
import type { ResolvedPath } from './paths.js';
import { formatRule } from './rules.js';

export interface Suggestion {
  type: 'addRules' | 'setMode' | 'addDirectories';
  rules?: Array<{ toolName: string; ruleContent?: string }>;
  behavior?: 'allow';
  mode?: PermissionModeName;
  directories?: string[];
  destination: 'session' | 'localSettings';
}

/** The facts of a decision that the advice depends on. */
export interface AdviceFacts {
  toolName: string;
  subject: PermissionSubject;
  path?: ResolvedPath;
  inside?: boolean;
  command?: CommandSegments;
}

export function suggestionsFor(f: AdviceFacts): Suggestion[] {
  const s = f.subject;
  if (s.kind === 'write' && f.path && !f.inside) return [{ type: 'addDirectories', directories: [parentDir(f.path.real)], destination: 'session' }];
  if (s.kind === 'read' && f.path && !f.inside) return [{ type: 'addDirectories', directories: [parentDir(f.path.real)], destination: 'session' }];
  if (s.kind === 'write') return [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }];
  if (s.kind === 'command' && f.command?.ok) {
    const rules = f.command.segments.filter((seg) => seg.coverable).map((seg) => ({ toolName: f.toolName, ruleContent: `${seg.text.split(' ')[0]}:*` }));
    const unique = rules.filter((r, i) => rules.findIndex((x) => x.ruleContent === r.ruleContent) === i);
    return [{ type: 'addRules', rules: unique, behavior: 'allow', destination: 'localSettings' }];
  }
  if (s.kind === 'fetch') {
    try {
      return [{ type: 'addRules', rules: [{ toolName: f.toolName, ruleContent: `domain:${new URL(s.url).hostname}` }], behavior: 'allow', destination: 'localSettings' }];
    } catch {
      return [];
    }
  }
  return [{ type: 'addRules', rules: [{ toolName: f.toolName }], behavior: 'allow', destination: 'session' }];
}

function parentDir(p: string): string {
  const i = p.lastIndexOf('/');
  return i > 0 ? p.slice(0, i) : '/';
}

export function howToAllow(f: AdviceFacts): string {
  const s = f.subject;
  if ((s.kind === 'read' || s.kind === 'write') && f.path && !f.inside) {
    return `add its directory with --add-dir ${parentDir(f.path.real)}, or an allow rule such as ${s.kind === 'read' ? 'Read' : 'Edit'}(//${f.path.real.replace(/^\//, '')})`;
  }
  if (s.kind === 'write') return `use --permission-mode acceptEdits, or an allow rule such as Edit(${s.path})`;
  if (s.kind === 'command') {
    const first = f.command?.ok ? f.command.segments.filter((x) => x.coverable).map((x) => `${formatRule({ toolName: f.toolName, ruleContent: `${x.text.split(' ')[0]}:*` })}`) : [];
    return first.length ? `add allow rules such as ${[...new Set(first)].join(', ')} (--allowedTools or settings)` : `allow the whole tool with --allowedTools ${f.toolName}`;
  }
  return `add ${f.toolName} to --allowedTools`;
}
