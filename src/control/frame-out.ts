// The outbound side as the control layer sees it: typed frames in, the transport's writer behind it.
import type { OutboundFrame } from '../../protocol/src/index.js';

export interface FrameOut {
  /** Returns a promise only when the caller should wait for the host to read (backpressure). */
  write(frame: OutboundFrame): Promise<void> | undefined;
  /**
   * Writes a frame that is already one line of JSON (the hot path for stream_event frames). The caller
   * guarantees the line is exactly what serialising a valid OutboundFrame would give.
   */
  writeLine?(line: string, type: OutboundFrame['type']): Promise<void> | undefined;
}
