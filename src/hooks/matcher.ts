// Hook matcher semantics (Claude Code 2.1.330, protocol.md §7.2): empty or "*" matches everything; a matcher made
// only of letters, digits, `_`, `|`, `,`, space and `-` is a list of exact names; anything else is an
// unanchored JavaScript regular expression (an invalid one matches nothing).
const EXACT_LIST = /^[A-Za-z0-9_|, -]+$/;
const EXACT_LIST_STRICT = /^[A-Za-z0-9_|]+$/;

export function matcherMatches(matcher: string | null | undefined, value: string | undefined, event?: string): boolean {
  if (matcher === undefined || matcher === null || matcher === '' || matcher === '*') return true;
  if (value === undefined) return true; // events without a match target ignore the matcher
  const strict = event === 'FileChanged' || event === 'StopFailure';
  if ((strict ? EXACT_LIST_STRICT : EXACT_LIST).test(matcher)) {
    return matcher
      .split(/[|,]/)
      .map((s) => s.trim())
      .filter(Boolean)
      .includes(value);
  }
  try {
    return new RegExp(matcher).test(value);
  } catch {
    return false;
  }
}
