/**
 * Buffers to draw images in, reused from one render to the next: an image of the pixel budget is
 * megabytes, and a fresh one per render would leave them to the garbage collector, which runs late for
 * memory outside the JavaScript heap (the process's memory would climb by the megabytes of every recent
 * render). At most `keep` are kept (the renders that may run at once); a request over `bytes` gets a
 * buffer of its own.
 */
export class ScratchBuffers {
  private readonly free: Buffer[] = []

  constructor(
    readonly bytes: number,
    private readonly keep: number,
  ) {}

  take(size: number): Buffer {
    if (size > this.bytes) return Buffer.allocUnsafeSlow(size)
    return this.free.pop() ?? Buffer.allocUnsafeSlow(this.bytes)
  }

  give(buffer: Buffer): void {
    if (buffer.length === this.bytes && this.free.length < this.keep) this.free.push(buffer)
  }
}
