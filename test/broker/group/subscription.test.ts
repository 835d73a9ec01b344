import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  consumerSubscribedTopics,
  decodeConsumerSubscription,
  subscribedTopicsFromConsumerMetadata,
  SubscriptionFormatError,
} from '../../../src/broker/group/subscription.js';
import { encodeSubscription } from './consumer-protocol.js';

describe('consumer protocol Subscription', () => {
  it('decodes v0–v3', () => {
    const owned = [{ topic: 'a', partitions: [0, 2] }];
    expect(decodeConsumerSubscription(encodeSubscription({ version: 0, topics: ['a', 'b'], userData: Buffer.from([7]) }))).toEqual({
      version: 0,
      topics: ['a', 'b'],
      userData: Buffer.from([7]),
      ownedPartitions: [],
      generationId: -1,
      rackId: null,
    });
    expect(decodeConsumerSubscription(encodeSubscription({ version: 1, topics: ['a'], ownedPartitions: owned }))).toMatchObject({ ownedPartitions: owned, generationId: -1 });
    expect(decodeConsumerSubscription(encodeSubscription({ version: 2, topics: ['a'], ownedPartitions: owned, generationId: 9 }))).toMatchObject({ generationId: 9, rackId: null });
    expect(decodeConsumerSubscription(encodeSubscription({ version: 3, topics: ['ü'], generationId: 4, rackId: 'rack-1' }))).toMatchObject({
      topics: ['ü'],
      generationId: 4,
      rackId: 'rack-1',
    });
  });

  it('reads versions above 3 with the v3 layout', () => {
    const buf = encodeSubscription({ version: 3, topics: ['x'], rackId: 'r' });
    buf.writeInt16BE(7, 0);
    expect(decodeConsumerSubscription(buf)).toMatchObject({ version: 7, topics: ['x'], rackId: 'r' });
  });

  it('rejects malformed input with SubscriptionFormatError', () => {
    expect(() => decodeConsumerSubscription(Buffer.alloc(0))).toThrow(SubscriptionFormatError);
    expect(() => decodeConsumerSubscription(Buffer.from([0, 0, 0, 0, 0, 5]))).toThrow(SubscriptionFormatError); // 5 topics, no bytes
    expect(() => decodeConsumerSubscription(Buffer.from([0, 0, 0xff, 0xff, 0xff, 0xff]))).toThrow(/null/); // null topics
    expect(() => decodeConsumerSubscription(Buffer.from([0, 0, 0, 0, 0, 1, 0xff, 0xff]))).toThrow(/null/); // null topic name
    expect(() => decodeConsumerSubscription(Buffer.from([0, 0, 0x7f, 0xff, 0xff, 0xff]))).toThrow(SubscriptionFormatError); // absurd count
    expect(() => decodeConsumerSubscription(Buffer.from([0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]))).toThrow(/version/);
  });

  it('the coordinator reads only the v0 prefix, like Kafka 3.9 (any version number, newer fields unchecked)', () => {
    const v1 = encodeSubscription({ version: 1, topics: ['t1', 't2'], ownedPartitions: [{ topic: 't1', partitions: [0] }] });
    expect(subscribedTopicsFromConsumerMetadata(v1)).toEqual(['t1', 't2']);
    const truncatedTail = v1.subarray(0, v1.length - 3);
    expect(() => decodeConsumerSubscription(truncatedTail)).toThrow(SubscriptionFormatError);
    expect(subscribedTopicsFromConsumerMetadata(truncatedTail)).toEqual(['t1', 't2']);
    const negativeVersion = encodeSubscription({ version: 0, topics: ['x'] });
    negativeVersion.writeInt16BE(-2, 0);
    expect(subscribedTopicsFromConsumerMetadata(negativeVersion)).toEqual(['x']);
    // userData is part of v0: a truncated one makes the topics unknown.
    const badUserData = encodeSubscription({ version: 0, topics: ['x'], userData: Buffer.from([1, 2, 3]) }).subarray(0, -1);
    expect(subscribedTopicsFromConsumerMetadata(badUserData)).toBeUndefined();
    expect(subscribedTopicsFromConsumerMetadata(Buffer.alloc(0))).toBeUndefined();
  });

  it('the default hook only understands protocol type "consumer"', () => {
    const md = encodeSubscription({ version: 0, topics: ['x'] });
    expect(consumerSubscribedTopics('consumer', 'range', md)).toEqual(['x']);
    expect(consumerSubscribedTopics('connect', 'default', md)).toBeUndefined();
  });

  const subscriptionArb = fc.record({
    version: fc.integer({ min: 0, max: 3 }),
    topics: fc.array(fc.string({ maxLength: 20 }), { maxLength: 8 }),
    userData: fc.option(fc.uint8Array({ maxLength: 16 }).map((a) => Buffer.from(a)), { nil: null }),
    ownedPartitions: fc.array(fc.record({ topic: fc.string({ maxLength: 10 }), partitions: fc.array(fc.integer({ min: -5, max: 5000 }), { maxLength: 5 }) }), { maxLength: 4 }),
    generationId: fc.integer({ min: -1, max: 1_000_000 }),
    rackId: fc.option(fc.string({ maxLength: 10 }), { nil: null }),
  });

  it('property: encode/decode round-trips every version', () => {
    fc.assert(
      fc.property(subscriptionArb, (s) => {
        // Lone surrogates do not survive UTF-8; Java replaces them the same way.
        const clean = (x: string) => Buffer.from(x, 'utf8').toString('utf8');
        const d = decodeConsumerSubscription(encodeSubscription(s));
        expect(d.version).toBe(s.version);
        expect(d.topics).toEqual(s.topics.map(clean));
        expect(d.userData).toEqual(s.userData);
        expect(d.ownedPartitions).toEqual(s.version >= 1 ? s.ownedPartitions.map((o) => ({ ...o, topic: clean(o.topic) })) : []);
        expect(d.generationId).toBe(s.version >= 2 ? s.generationId : -1);
        expect(d.rackId).toBe(s.version >= 3 && s.rackId !== null ? clean(s.rackId) : null);
      }),
    );
  });

  it('property: arbitrary bytes never make the decoders throw anything but SubscriptionFormatError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const buf = Buffer.from(bytes);
        const topics = subscribedTopicsFromConsumerMetadata(buf);
        expect(topics === undefined || Array.isArray(topics)).toBe(true);
        try {
          decodeConsumerSubscription(buf);
        } catch (e) {
          expect(e).toBeInstanceOf(SubscriptionFormatError);
        }
      }),
    );
  });
});
