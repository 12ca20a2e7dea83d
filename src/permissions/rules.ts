// Permission rules: `Tool` or `Tool(specifier)`, from --allowedTools/--disallowedTools, settings files, the
// session and the host's permission updates. Deny beats ask beats allow; specificity does not matter.

export type RuleBehavior = 'allow' | 'deny' | 'ask';
export type RuleSource = 'cliArg' | 'session' | 'userSettings' | 'projectSettings' | 'localSettings' | 'flagSettings' | 'policySettings';

export interface RuleValue {
  toolName: string;
  ruleContent?: string;
}

export interface PermissionRule extends RuleValue {
  behavior: RuleBehavior;
  source: RuleSource;
  /** Directory that `/path` specifiers are relative to (the settings file's project root; cwd for cliArg). */
  baseDir: string;
}

/** Parses `Bash(npm run test:*)` → {toolName:'Bash', ruleContent:'npm run test:*'}; `\(` and `\)` escape parens. */
export function parseRule(text: string): RuleValue | undefined {
  const s = text.trim();
  if (s === '') return undefined;
  const open = indexOfUnescaped(s, '(');
  if (open === -1) return /^[\w.*-]+$/.test(s) ? { toolName: s } : undefined;
  if (!s.endsWith(')') || s[s.length - 2] === '\\') return undefined;
  const toolName = s.slice(0, open).trim();
  if (!/^[\w.*-]+$/.test(toolName)) return undefined;
  const content = s.slice(open + 1, -1).replace(/\\([()])/g, '$1');
  // `Bash()` and `Bash(*)` mean the whole tool.
  if (content === '' || content === '*') return { toolName };
  return { toolName, ruleContent: content };
}

function indexOfUnescaped(s: string, ch: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') {
      i++;
      continue;
    }
    if (s[i] === ch) return i;
  }
  return -1;
}

export function formatRule(r: RuleValue): string {
  return r.ruleContent === undefined ? r.toolName : `${r.toolName}(${r.ruleContent.replace(/[()]/g, '\\$&')})`;
}

export function describeRule(r: PermissionRule): string {
  return `${formatRule(r)}@${r.source}`;
}

/** The mutable rule set of a session. */
export class RuleSet {
  private rules: PermissionRule[] = [];

  all(): readonly PermissionRule[] {
    return this.rules;
  }

  byBehavior(b: RuleBehavior): PermissionRule[] {
    return this.rules.filter((r) => r.behavior === b);
  }

  add(rules: readonly PermissionRule[]): void {
    for (const r of rules) {
      if (!this.rules.some((x) => same(x, r))) this.rules.push(r);
    }
  }

  remove(values: readonly RuleValue[], behavior: RuleBehavior, source: RuleSource): void {
    this.rules = this.rules.filter((r) => !(r.behavior === behavior && r.source === source && values.some((v) => v.toolName === r.toolName && v.ruleContent === r.ruleContent)));
  }

  replace(values: readonly RuleValue[], behavior: RuleBehavior, source: RuleSource, baseDir: string): void {
    this.rules = this.rules.filter((r) => !(r.behavior === behavior && r.source === source));
    this.add(values.map((v) => ({ ...v, behavior, source, baseDir })));
  }
}

function same(a: PermissionRule, b: PermissionRule): boolean {
  return a.toolName === b.toolName && a.ruleContent === b.ruleContent && a.behavior === b.behavior && a.source === b.source;
}

export function rulesFrom(texts: readonly string[], behavior: RuleBehavior, source: RuleSource, baseDir: string, onInvalid?: (t: string) => void): PermissionRule[] {
  const out: PermissionRule[] = [];
  for (const t of texts) {
    const v = parseRule(t);
    if (!v) {
      onInvalid?.(t);
      continue;
    }
    out.push({ ...v, behavior, source, baseDir });
  }
  return out;
}
