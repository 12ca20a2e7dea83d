// Permission modes, as the SDK types name them (protocol.md §6.1). The core keeps its own list so it does not
// depend on the protocol package; a test checks the two lists agree.
export const PERMISSION_MODE_NAMES = ['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk', 'auto'] as const;
export type PermissionModeName = (typeof PERMISSION_MODE_NAMES)[number];

export function isPermissionMode(s: string): s is PermissionModeName {
  return (PERMISSION_MODE_NAMES as readonly string[]).includes(s);
}

/** Settings files also accept `manual` as an alias of `default`. */
export function normalizeMode(s: string): PermissionModeName | undefined {
  if (s === 'manual') return 'default';
  return isPermissionMode(s) ? s : undefined;
}
