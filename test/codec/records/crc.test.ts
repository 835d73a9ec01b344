import { compressFrameSync } from 'lz4-napi';
import { describe, expect, it } from 'vitest';
import { crc32, crc32c } from '../../../src/codec/records/index.js';
import { xxh32Short } from '../../../src/codec/records/lz4.js';
import { require } from './helpers.js';

describe('checksums', () => {
  it('CRC-32C golden: crc32c("123456789") = 0xe3069283', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  it('CRC-32C over a sub-range equals CRC-32C of the copied bytes', () => {
    const b = Buffer.from('xx123456789yy');
    expect(crc32c(b, 2, 11)).toBe(0xe3069283);
  });

  it('CRC-32 (IEEE) golden: crc32("123456789") = 0xcbf43926', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32(Buffer.from('..123456789'), 2)).toBe(0xcbf43926);
  });

  it('agrees with kafkajs own CRC-32C and CRC-32 tables', () => {
    const kjsCrc32c = require('kafkajs/src/protocol/recordBatch/crc32C') as (b: Buffer) => number;
    const kjsCrc32 = require('kafkajs/src/protocol/crc32') as (b: { buffer: Buffer }) => number;
    for (const s of ['', 'a', 'kafka', 'x'.repeat(1000)]) {
      const b = Buffer.from(s);
      expect(crc32c(b)).toBe(kjsCrc32c(b));
      expect(crc32(b)).toBe(kjsCrc32({ buffer: b }) >>> 0);
    }
  });

  it('xxHash32 matches the LZ4 frame header checksums lz4_flex (lz4-napi) writes, for every flag combination', () => {
    expect(xxh32Short(Buffer.alloc(0), 0, 0)).toBe(0x02cc5d05); // XXH32 of the empty input, seed 0
    // (xxh32 >> 8) & 0xff of FLG/BD: 60 40 -> 0x82 for lz4_flex's default frame
    expect((xxh32Short(Buffer.from([0x60, 0x40]), 0, 2) >>> 8) & 0xff).toBe(0x82);
    const seen = new Set<number>();
    for (const contentChecksum of [false, true]) {
      for (const blockChecksums of [false, true]) {
        const frame = compressFrameSync(Buffer.from('xxhash'), { contentChecksum, blockChecksums });
        expect(frame.readUInt32LE(0)).toBe(0x184d2204);
        seen.add(frame[4]);
        expect(frame[6]).toBe((xxh32Short(frame, 4, 6) >>> 8) & 0xff);
      }
    }
    expect(seen.size).toBe(4); // four different FLG bytes, so four different checksums were checked
    // librdkafka's frames (proper and, for magic 0, the broken one) are checked in librdkafka.test.ts
  });
});
