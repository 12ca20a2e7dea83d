// stdout belongs to the protocol. At start-up the transport takes the real stdout stream; from then on
// `process.stdout` and `console` point at stderr, so a stray console.log (ours or a dependency's) can never
// corrupt the frame stream.
import { Console } from 'node:console';
import type { Writable } from 'node:stream';

export function claimStdout(): Writable {
  const real = process.stdout;
  Object.defineProperty(process, 'stdout', { configurable: true, enumerable: true, get: () => process.stderr });
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
  return real;
}
