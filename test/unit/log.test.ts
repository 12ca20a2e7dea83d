import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, scrubSecrets } from '../../src/log/logger.js';

describe('logging keeps secrets out', () => {
  it('scrubs known secret values, raw and JSON-escaped, from every line', async () => {
    let out = '';
    const stream = new Writable({
      write(chunk: Buffer, _e, cb) {
        out += chunk.toString();
        cb();
      },
    });
    const secret = 'sk-ant-api03-very-secret"value';
    const logger = createLogger({ level: 'info', secrets: [secret, 'short'], stream });
    logger.info({ headers: { authorization: `Bearer ${secret}` }, note: `key=${secret}` }, `using ${secret}`);
    logger.child({ apiKey: secret }).warn({ x: 1 }, 'child');
    await new Promise((r) => setImmediate(r));
    expect(out).not.toContain('very-secret');
    expect(out).toContain('[REDACTED]');
    expect(scrubSecrets('a short b', ['short'])).toBe('a short b'); // under 8 chars: not treated as a secret
  });

  it('does not load pino for levels that are off', () => {
    const logger = createLogger({ level: 'silent', secrets: [] });
    expect(logger.isLevelEnabled('error')).toBe(false);
    logger.error({}, 'dropped');
  });
});
