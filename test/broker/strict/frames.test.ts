// Strict-clients mode on whole frames: versions ApiVersions does not advertise, bytes after the
// body, and a tagged-field section after a non-flexible body. Each wrong request goes to a strict
// and a plain broker: the finding is recorded, and both answer (or close) exactly alike.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiVersionsRequest, createProduceRequest } from '../../../src/codec/index.js';
import { RawClient } from '../../support/raw-client.js';
import { answerTo, connectBoth, frameOf, strictAndPlain, withTrailing, withVersion, type Twins } from './helpers.js';

let twins: Twins;
let strict: RawClient;
let plain: RawClient;

beforeEach(async () => {
  twins = await strictAndPlain();
  [strict, plain] = await connectBoth(twins);
});
afterEach(async () => {
  strict.close();
  plain.close();
  await twins.close();
});

/** Sends `frame` to both brokers; their answers must be the same bytes (or both a close). */
async function sameAnswer(frame: Buffer): Promise<Buffer | 'closed'> {
  const [a, b] = await Promise.all([answerTo(strict, frame), answerTo(plain, frame)]);
  expect(a).toEqual(b);
  return a;
}

const apiVersions = (version: number, correlationId: number) =>
  frameOf(18, version, correlationId, createApiVersionsRequest({ clientSoftwareName: 'strict-test', clientSoftwareVersion: '1.0' }));
const findings = () => twins.strict.control.strictClients();

describe('unadvertised-version', () => {
  it('Produce v12 (ApiVersions advertises v0-11): recorded before the connection is closed, as Kafka closes it', async () => {
    const v11 = frameOf(0, 11, 7, createProduceRequest({ acks: 1, timeoutMs: 1000, topicData: [] }));
    expect(await sameAnswer(withVersion(v11, 12))).toBe('closed');
    const s = findings();
    expect(s).toMatchObject({ enabled: true, total: 1 });
    expect(s.kinds).toHaveLength(1);
    expect(s.kinds[0]).toMatchObject({
      kind: 'unadvertised-version',
      count: 1,
      first: {
        kind: 'unadvertised-version',
        api: 'Produce',
        apiKey: 0,
        apiVersion: 12,
        correlationId: 7,
        clientId: 'kmock-raw-client',
        detail: 'Produce v12: ApiVersions advertises Produce v0-11',
      },
    });
    expect(s.kinds[0]!.first.connection).toMatchObject({ id: 1, host: expect.stringMatching(/127\.0\.0\.1/), softwareName: null });
    expect(twins.plain.control.strictClients()).toEqual({ enabled: false, total: 0, kinds: [] });
  });

  it('an API key no broker serves', async () => {
    const frame = apiVersions(0, 3);
    frame.writeInt16BE(999, 4);
    expect(await sameAnswer(frame)).toBe('closed');
    expect(findings().kinds[0]?.first).toMatchObject({ api: 'apiKey 999', apiKey: 999, detail: 'API key 999 is not among the APIs this broker advertises in ApiVersions' });
  });

  it('ApiVersions above its max is KIP-511 (answered UNSUPPORTED_VERSION in the v0 layout): no finding', async () => {
    const answer = await sameAnswer(withVersion(apiVersions(4, 5), 5));
    expect(answer).not.toBe('closed');
    expect((answer as Buffer).readInt16BE(4)).toBe(35);
    expect(findings().total).toBe(0);
  });

  it('counts every occurrence and keeps the first as the example', async () => {
    for (const [c, v] of [[1, 12], [2, 13]] as const) {
      const conn = await RawClient.connect(twins.strict.bootstrapServers);
      expect(await answerTo(conn, withVersion(frameOf(0, 11, c, createProduceRequest({ acks: 1, timeoutMs: 1000, topicData: [] })), v))).toBe('closed');
    }
    expect(findings().kinds).toMatchObject([{ kind: 'unadvertised-version', count: 2, first: { apiVersion: 12, correlationId: 1 } }]);
  });
});

describe('trailing-bytes', () => {
  it('bytes after a flexible body (ApiVersions v3): answered as without them', async () => {
    const answer = await sameAnswer(withTrailing(apiVersions(3, 11), Buffer.from('abc')));
    expect(answer).toEqual(await answerTo(plain, apiVersions(3, 11)));
    expect(findings().kinds).toMatchObject([
      { kind: 'trailing-bytes', count: 1, first: { api: 'ApiVersions', apiVersion: 3, correlationId: 11, detail: '3 byte(s) after the ApiVersions v3 body: 616263' } },
    ]);
  });

  it('bytes after a non-flexible body that are no tagged-field section', async () => {
    await sameAnswer(withTrailing(apiVersions(1, 12), Buffer.from([0xde, 0xad])));
    expect(findings().kinds).toMatchObject([{ kind: 'trailing-bytes', first: { apiVersion: 1, detail: '2 byte(s) after the ApiVersions v1 body: dead' } }]);
  });
});

describe('tagged-fields-in-non-flexible-version', () => {
  it('an empty tagged-field section (one 0 byte) after ApiVersions v2', async () => {
    await sameAnswer(withTrailing(apiVersions(2, 21), Buffer.from([0])));
    expect(findings().kinds).toMatchObject([
      {
        kind: 'tagged-fields-in-non-flexible-version',
        count: 1,
        first: { apiVersion: 2, correlationId: 21, detail: '1 byte(s) after the body are an empty tagged-field section; ApiVersions v2 is not flexible (flexible from v3)' },
      },
    ]);
  });

  it('a section with one field (tag 5, two bytes) after Produce v8', async () => {
    const produce = frameOf(0, 8, 22, createProduceRequest({ acks: 1, timeoutMs: 1000, topicData: [] }));
    await sameAnswer(withTrailing(produce, Buffer.from([1, 5, 2, 0xaa, 0xbb])));
    expect(findings().kinds[0]).toMatchObject({
      kind: 'tagged-fields-in-non-flexible-version',
      first: { api: 'Produce', apiVersion: 8, detail: '5 byte(s) after the body are a tagged-field section with tags 5; Produce v8 is not flexible (flexible from v9)' },
    });
  });
});

it('a correct request is no finding, and with strict mode off nothing is recorded at all', async () => {
  await sameAnswer(apiVersions(3, 1));
  await sameAnswer(apiVersions(0, 2));
  expect(findings().total).toBe(0);
  await answerTo(plain, withTrailing(apiVersions(2, 3), Buffer.from([0])));
  expect(twins.plain.control.strictClients().total).toBe(0);
});
