// Which files this session has read, and what they looked like then. Write and Edit refuse to touch a file
// that exists but was not read first, or that changed on disk since it was read (Claude Code's checks).

export interface FileSnapshot {
  /** mtime (ms) when the file was last read or written by a tool. */
  mtimeMs: number;
  size: number;
  /** True when only part of the file was read (offset/limit). Edit still accepts it, as Claude Code does. */
  partial: boolean;
}

export class FileStateCache {
  private readonly map = new Map<string, FileSnapshot>();
  private readonly maxEntries: number;

  constructor(maxEntries = 10_000) {
    this.maxEntries = maxEntries;
  }

  get(path: string): FileSnapshot | undefined {
    return this.map.get(path);
  }

  set(path: string, snap: FileSnapshot): void {
    // Re-insert to keep insertion order as recency order; evict the oldest beyond the bound.
    this.map.delete(path);
    this.map.set(path, snap);
    if (this.map.size > this.maxEntries) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
  }

  delete(path: string): void {
    this.map.delete(path);
  }

  get size(): number {
    return this.map.size;
  }
}
