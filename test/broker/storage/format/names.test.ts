// File and folder names of a Kafka log dir (src/broker/storage/format/segment-files.ts), after
// LogFileUtils and LocalLog.parseTopicPartitionName.
import { describe, expect, it } from 'vitest';
import {
  classifyPartitionFile,
  parsePartitionDirName,
  parseSegmentFileName,
  partitionDirName,
  segmentFileName,
} from '../../../../src/broker/storage/format/index.js';

describe('segment file names', () => {
  it('pads the offset to 20 digits, as filenamePrefixFromOffset', () => {
    expect(segmentFileName(0, '.log')).toBe('00000000000000000000.log');
    expect(segmentFileName(66, '.index')).toBe('00000000000000000066.index');
    expect(segmentFileName(123456789012, '.timeindex')).toBe('00000000123456789012.timeindex');
    expect(segmentFileName(Number.MAX_SAFE_INTEGER, '.snapshot')).toBe('00009007199254740991.snapshot');
    expect(segmentFileName(7, '.txnindex')).toBe('00000000000000000007.txnindex');
  });

  it('refuses offsets and suffixes Kafka could not name', () => {
    expect(() => segmentFileName(-1, '.log')).toThrow(RangeError);
    expect(() => segmentFileName(1.5, '.log')).toThrow(RangeError);
    expect(() => segmentFileName(2 ** 60, '.log')).toThrow(RangeError);
    expect(() => segmentFileName(0, '.deleted' as never)).toThrow(RangeError);
  });

  it('parses every name it writes', () => {
    for (const suffix of ['.log', '.index', '.timeindex', '.txnindex', '.snapshot'] as const) {
      for (const offset of [0, 1, 66, 4096, 10 ** 15]) {
        expect(parseSegmentFileName(segmentFileName(offset, suffix))).toEqual({ baseOffset: offset, suffix });
      }
    }
  });

  it("recognises LocalLog's pending suffixes", () => {
    expect(parseSegmentFileName('00000000000000000010.log.deleted')).toEqual({ baseOffset: 10, suffix: '.log', pending: '.deleted' });
    expect(parseSegmentFileName('00000000000000000010.index.cleaned')).toEqual({ baseOffset: 10, suffix: '.index', pending: '.cleaned' });
    expect(parseSegmentFileName('00000000000000000010.timeindex.swap')).toEqual({ baseOffset: 10, suffix: '.timeindex', pending: '.swap' });
  });

  it('answers null for anything else', () => {
    for (const name of [
      '',
      '10.log',
      '0000000000000000001.log',
      '000000000000000000010.log',
      '00000000000000000010.LOG',
      '00000000000000000010.logs',
      '00000000000000000010',
      '00000000000000000010.log.tmp',
      '-0000000000000000010.log',
      '99999999999999999999.log',
      'leader-epoch-checkpoint',
    ]) {
      expect(parseSegmentFileName(name), name).toBeNull();
    }
  });

  it('classifies the files of a partition folder', () => {
    expect(classifyPartitionFile('leader-epoch-checkpoint')).toEqual({ kind: 'leader-epoch-checkpoint' });
    expect(classifyPartitionFile('partition.metadata')).toEqual({ kind: 'partition-metadata' });
    expect(classifyPartitionFile('partition.metadata.tmp')).toEqual({ kind: 'temporary', of: 'partition.metadata' });
    expect(classifyPartitionFile('00000000000000000005.snapshot')).toEqual({ kind: 'segment', baseOffset: 5, suffix: '.snapshot' });
    expect(classifyPartitionFile('quorum-state')).toEqual({ kind: 'unknown' });
  });
});

describe('partition folder names', () => {
  it('is topic-partition', () => {
    expect(partitionDirName('orders', 0)).toBe('orders-0');
    expect(partitionDirName('a-b.c_d', 12)).toBe('a-b.c_d-12');
    expect(partitionDirName('__consumer_offsets', 49)).toBe('__consumer_offsets-49');
  });

  it('refuses illegal topics and partitions', () => {
    for (const t of ['', '.', '..', 'a b', 'a/b', 'x'.repeat(250), 'é']) expect(() => partitionDirName(t, 0), t).toThrow(RangeError);
    for (const p of [-1, 1.5, 2 ** 31]) expect(() => partitionDirName('t', p)).toThrow(RangeError);
  });

  it('parses live folders as parseTopicPartitionName, topic up to the last dash', () => {
    expect(parsePartitionDirName('orders-0')).toEqual({ topic: 'orders', partition: 0, kind: 'live' });
    expect(parsePartitionDirName('my-topic-12')).toEqual({ topic: 'my-topic', partition: 12, kind: 'live' });
    expect(parsePartitionDirName('a.b-3')).toEqual({ topic: 'a.b', partition: 3, kind: 'live' });
    // Integer.parseInt takes a '+' sign.
    expect(parsePartitionDirName('t-+4')).toEqual({ topic: 't', partition: 4, kind: 'live' });
    for (const name of ['orders', '-0', 'orders-', 'orders-x', 'orders-1.5', 'orders-2147483648', '']) {
      expect(parsePartitionDirName(name), name).toBeNull();
    }
  });

  it('recognises -delete, -future and -stray folders', () => {
    const id = '0123456789abcdef0123456789abcdef';
    expect(parsePartitionDirName(`orders-3.${id}-delete`)).toEqual({ topic: 'orders', partition: 3, kind: 'delete', uniqueId: id });
    expect(parsePartitionDirName(`my.topic-0.${id}-future`)).toEqual({ topic: 'my.topic', partition: 0, kind: 'future', uniqueId: id });
    expect(parsePartitionDirName(`x-y-7.${id}-stray`)).toEqual({ topic: 'x-y', partition: 7, kind: 'stray', uniqueId: id });
    // Not topic-partition.uniqueId-delete: Kafka throws, so null.
    expect(parsePartitionDirName('orders-delete')).toBeNull();
    expect(parsePartitionDirName('orders-3-delete')).toBeNull();
    expect(parsePartitionDirName(`orders.${id}-delete`)).toBeNull();
  });
});
