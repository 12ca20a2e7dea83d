// stdout belongs to the protocol. At start-up the transport takes the real stdout stream; from then on
// `process.stdout` and `console` point at stderr, so a stray console.log (ours or a dependency's) can never
// corrupt the frame stream.
import { Console } from 'node:console';
import { fstatSync } from 'node:fs';
import { Socket, type SocketConstructorOpts } from 'node:net';
import type { Writable } from 'node:stream';

export function claimStdout(): Writable {
  const real = stdoutStream();
  Object.defineProperty(process, 'stdout', { configurable: true, enumerable: true, get: () => process.stderr });
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
  return real;
}

/**
 * fd 1 as a stream. When it is a socket (a Node host's stdio is a socketpair: the TS SDK, claude-agent-acp), it
 * is opened readable too, paused until watchStdoutPeer: the host's end closing then shows as 'end' at once,
 * even while agentd writes nothing (a long silent tool). Pipes and TTYs keep Node's own stream.
 */
function stdoutStream(): Writable {
  let socket = false;
  try {
    const out = fstatSync(1);
    // One socket for both stdin and stdout (socat, inetd-style activation): reading fd 1 would take stdin's bytes.
    const inp = fstatSync(0);
    socket = out.isSocket() && !(inp.dev === out.dev && inp.ino === out.ino);
  } catch {
    socket = false;
  }
  if (!socket) return process.stdout;
  // pauseOnCreate (a Node option its typings omit): not reading, so the socket holds no event-loop reference
  // until watched, and a start-up error still exits by itself.
  const opts: SocketConstructorOpts & { pauseOnCreate: boolean } = { fd: 1, readable: true, writable: true, allowHalfOpen: true, pauseOnCreate: true };
  return new Socket(opts);
}

/**
 * Calls `onEnd` when the host's end of a socket stdout closes (or shuts down its writing side, which no known
 * host does: the caller confirms with a write). Bytes the host might send on it are discarded. A no-op for
 * pipes and TTYs, where only a failed write tells.
 */
export function watchStdoutPeer(stdout: Writable, onEnd: () => void): void {
  if (!(stdout instanceof Socket) || !stdout.readable) return;
  stdout.once('end', onEnd);
  stdout.on('data', () => undefined);
  // Created paused (flowing === false): a 'data' listener alone does not start it.
  stdout.resume();
}
