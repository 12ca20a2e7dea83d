// ../shared next to the checkout holds what tests compare against but the repository does not carry: Claude Code's
// captures (reference/transcripts) and vendored clients (vendor/). AGENTD_SHARED_DIR points elsewhere. A test that
// needs it fails with this message when it is missing, never skips.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './daemon.js';

export const SHARED_DIR = process.env['AGENTD_SHARED_DIR'] ?? join(ROOT, '..', 'shared');

/** The path of `parts` under ../shared; throws naming what is missing and how to provide it. */
export function sharedPath(...parts: string[]): string {
  const p = join(SHARED_DIR, ...parts);
  if (!existsSync(p)) {
    throw new Error(`${p} is missing: this test needs ../shared (the reference captures and vendored clients) next to the checkout, or AGENTD_SHARED_DIR pointing at it`);
  }
  return p;
}
