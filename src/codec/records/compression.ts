// One entry point per direction for the five Kafka codecs, with the framing each one uses on
// Kafka's wire (see gzip below, snappy.ts, lz4.ts, zstd.ts) and one decompression-bomb guard:
// no codec may produce more than `maxSize` bytes, and each refuses before inflating when it can
// tell from headers alone.
import * as zlib from 'node:zlib';
import { DecodeError, EncodeError } from '../primitives/index.js';
import { compressionName, DEFAULT_MAX_DECOMPRESSED_SIZE, type CompressionName } from './constants.js';
import { lz4Compress, lz4Decompress } from './lz4.js';
import { snappyCompress, snappyDecompress } from './snappy.js';
import { initZstd, zstdCompress, zstdDecompress } from './zstd.js';

/**
 * Prepares the codecs that need asynchronous setup (zstd's WASM module). Idempotent; call once
 * at start-up before encoding or decoding zstd batches. The other codecs work without it.
 */
export function initCompression(): Promise<void> {
  return initZstd();
}

export interface DecompressOptions {
  /** Largest decompressed size accepted; default 64 MiB. */
  maxSize?: number;
  /** Magic of the message being decompressed: magic 0 LZ4 frames carry a broken header checksum. */
  magic?: number;
}

/** Compresses `data` with codec `codec` (a name or a codec id). `magic` < 2 selects legacy LZ4 framing. */
export function compress(codec: CompressionName | number, data: Buffer, magic = 2): Buffer {
  const name = typeof codec === 'number' ? compressionName(codec) : codec;
  switch (name) {
    case 'none':
      return data;
    case 'gzip':
      return zlib.gzipSync(data);
    case 'snappy':
      return snappyCompress(data);
    case 'lz4':
      return lz4Compress(data, magic === 0);
    case 'zstd':
      // Kafka only allows zstd in v2 batches (KIP-110).
      if (magic < 2) throw new EncodeError('zstd compression needs magic 2');
      return zstdCompress(data);
    default:
      throw new EncodeError(`unknown compression codec ${String(codec)}`);
  }
}

/** Decompresses `data` compressed with `codec`; DecodeError for corrupt data or data over the limit. */
export function decompress(codec: CompressionName | number, data: Buffer, options?: DecompressOptions): Buffer {
  const maxSize = options?.maxSize ?? DEFAULT_MAX_DECOMPRESSED_SIZE;
  const name = typeof codec === 'number' ? compressionName(codec) : codec;
  switch (name) {
    case 'none':
      return data;
    case 'gzip':
      return gunzip(data, maxSize);
    case 'snappy':
      return snappyDecompress(data, maxSize);
    case 'lz4':
      return lz4Decompress(data, maxSize, options?.magic === 0);
    case 'zstd':
      return zstdDecompress(data, maxSize);
    default:
      throw new DecodeError(`unknown compression codec ${String(codec)}`);
  }
}

/** gzip as Java's GZIPInputStream reads it; zlib stops at `maxOutputLength`, so a bomb never inflates fully. */
function gunzip(data: Buffer, maxSize: number): Buffer {
  try {
    return zlib.gunzipSync(data, { maxOutputLength: Math.max(1, maxSize) });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
      throw new DecodeError(`gzip data would decompress to more than the ${maxSize}-byte limit`);
    }
    throw new DecodeError(`gzip: ${err.message}`);
  }
}
