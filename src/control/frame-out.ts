// The outbound side as the control layer sees it: typed frames in, the transport's writer behind it.
import type { OutboundFrame } from '../../protocol/src/index.js';

export interface FrameOut {
  /** Returns a promise only when the caller should wait for the host to read (backpressure). */
  write(frame: OutboundFrame): Promise<void> | undefined;
}
