// Waiting for a condition outside the test's reach (a file another process writes, a process group dying): polled,
// with a deadline far beyond the expected time, so a loaded machine slows a test down instead of failing it.

/** Resolves with how long it took once `pred()` holds; rejects naming `what` after `timeoutMs`. */
export async function until(pred: () => boolean, what: string, timeoutMs = 20_000): Promise<number> {
  const t0 = Date.now();
  while (!pred()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - t0;
}

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
