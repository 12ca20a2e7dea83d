// The installation's device id, sent in every request's metadata.user_id as Claude Code sends its own (a random
// 64-hex-digit id it keeps in its config file; agentd keeps its own under <config dir>/agentd/device-id so it
// never writes Claude Code's file). Made on first use; a config directory that cannot be written gets an id for
// this process only.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log/logger.js';

const VALID = /^[0-9a-f]{64}$/;

export function deviceIdPath(configDir: string): string {
  return join(configDir, 'agentd', 'device-id');
}

export function loadDeviceId(configDir: string, logger: Pick<Logger, 'debug'>): string {
  const path = deviceIdPath(configDir);
  const read = (): string | undefined => {
    try {
      const v = readFileSync(path, 'utf8').trim();
      return VALID.test(v) ? v : undefined;
    } catch {
      return undefined;
    }
  };
  const existing = read();
  if (existing !== undefined) return existing;
  // Web Crypto, not node:crypto: the global is there on every supported Node and keeps node:crypto out of the
  // start-up module set (test/process/startup-modules.test.ts).
  const id = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32))).toString('hex');
  try {
    mkdirSync(join(configDir, 'agentd'), { recursive: true, mode: 0o700 });
    // 'w' replaces an unreadable or malformed file; two daemons starting at once may each write: the last wins,
    // and both ids are well-formed.
    writeFileSync(path, `${id}\n`, { mode: 0o600 });
  } catch (err) {
    logger.debug({ err, path }, 'device id not saved: this process uses its own');
  }
  return id;
}
