// An import file read piece by piece: the importers hold a window of it, never the whole file (a
// 1 GB catalogue imports in a few hundred megabytes). A piece can be read again by its offsets
// (a record deferred to the end of its file, the start of a line an error is reported on).
import { type FileHandle, open } from 'node:fs/promises'
import { addError, type FileReport } from './report'

/** Bytes read per call. */
export const CHUNK = 1 << 20

export interface ByteSource {
  readonly size: number
  /** The next bytes (at most CHUNK), or null at the end. The array is the caller's to keep. */
  next(): Promise<Uint8Array | null>
  /** Bytes [start, end) of the file. */
  range(start: number, end: number): Promise<Uint8Array>
  close(): Promise<void>
}

/**
 * Opens a file to import, or refuses it whole in `report` (null) when it cannot be read; on success
 * the report carries the file's size.
 */
export async function openForImport(path: string, report: FileReport): Promise<ByteSource | null> {
  try {
    const source = await openByteSource(path)
    report.bytes = source.size
    return source
  } catch (error) {
    report.refused = true
    addError(report, null, `cannot read: ${(error as Error).message}`)
    return null
  }
}

export async function openByteSource(path: string): Promise<ByteSource> {
  const handle: FileHandle = await open(path, 'r')
  let size: number
  try {
    size = (await handle.stat()).size
  } catch (error) {
    await handle.close()
    throw error
  }
  let position = 0
  return {
    size,
    async next() {
      const buffer = new Uint8Array(CHUNK)
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, position)
      if (bytesRead === 0) return null
      position += bytesRead
      return bytesRead === CHUNK ? buffer : buffer.subarray(0, bytesRead)
    },
    async range(start, end) {
      const buffer = new Uint8Array(Math.max(0, end - start))
      let done = 0
      while (done < buffer.length) {
        const { bytesRead } = await handle.read(buffer, done, buffer.length - done, start + done)
        if (bytesRead === 0) break
        done += bytesRead
      }
      return buffer.subarray(0, done)
    },
    close: () => handle.close(),
  }
}

/** A source over bytes already in memory (tests). */
export function memorySource(bytes: Uint8Array, chunk = CHUNK): ByteSource {
  let position = 0
  return {
    size: bytes.length,
    async next() {
      if (position >= bytes.length) return null
      const piece = bytes.slice(position, position + chunk)
      position += piece.length
      return piece
    },
    range: async (start, end) => bytes.slice(start, end),
    close: async () => {},
  }
}

/**
 * A growing window over a source: `bytes` holds the file from offset `base` on; `fill()` appends
 * the next piece, `drop(offset)` forgets what lies before an offset (already consumed).
 */
export class Window {
  bytes: Uint8Array = new Uint8Array(0)
  base = 0
  eof = false

  constructor(readonly source: ByteSource) {}

  /** File offset just past the bytes held. */
  get end(): number {
    return this.base + this.bytes.length
  }

  /** Reads the next piece; false at the end of the file. */
  async fill(): Promise<boolean> {
    if (this.eof) return false
    const piece = await this.source.next()
    if (piece === null) {
      this.eof = true
      return false
    }
    if (this.bytes.length === 0) this.bytes = piece
    else {
      const joined = new Uint8Array(this.bytes.length + piece.length)
      joined.set(this.bytes)
      joined.set(piece, this.bytes.length)
      this.bytes = joined
    }
    return true
  }

  /** Forgets the bytes before file offset `offset`. */
  drop(offset: number): void {
    if (offset <= this.base) return
    this.bytes = this.bytes.subarray(offset - this.base)
    this.base = offset
  }
}
