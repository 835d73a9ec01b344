// ApiVersions negotiation (KIP-511) and what a broker does with versions and API keys it does not
// speak. Kafka's own checks: SocketServerTest / KafkaApisTest.testApiVersions*.
import type { Scenario, Step } from '../runner.js';
import { E, expectClosed, scenario, send } from './dsl.js';

function withTags(s: Scenario): Scenario {
  return { ...s, tags: ['api'] };
}

/** A request frame by hand: v1 header (api key, version, correlation id, client id) and a body. */
function rawFrame(apiKey: number, apiVersion: number, body: Buffer = Buffer.alloc(0)): Buffer {
  const clientId = Buffer.from('raw');
  const header = Buffer.alloc(10);
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(apiVersion, 2);
  header.writeInt32BE(99, 4);
  header.writeInt16BE(clientId.length, 8);
  const size = Buffer.alloc(4);
  size.writeInt32BE(header.length + clientId.length + body.length);
  return Buffer.concat([size, header, clientId, body]);
}

const software = { clientSoftwareName: 'kmock-conformance', clientSoftwareVersion: '1.0.0' };

export const apiScenarios: Scenario[] = [
  withTags(
    scenario('testApiVersionsNegotiation', {
      mirrors: 'KafkaApisTest.testApiVersions / SocketServer ApiVersions handling',
      description: 'ApiVersions v0-v4: the version range of every API both sides know, throttle time (v1+), features (v3+)',
      steps: [0, 1, 2, 3, 4].map((v) => send('a', 18, v, v >= 3 ? software : {}, { expect: { errorCode: 0 } })),
      groups: [],
    }),
  ),
  withTags(
    scenario('testApiVersionsUnsupportedVersion', {
      mirrors: 'SocketServerTest (KIP-511: an ApiVersions version the broker does not know is answered at v0 with UNSUPPORTED_VERSION)',
      description: 'ApiVersions v5 and v127 (written in the v3 layout, as clients do) → UNSUPPORTED_VERSION in a v0 body listing ApiVersions 0-4; the connection stays open',
      steps: [
        send('a', 18, 5, software, { encodeVersion: 3, decodeVersion: 0, expect: { errorCode: E.UNSUPPORTED_VERSION, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }] } }),
        send('a', 18, 127, software, { encodeVersion: 3, decodeVersion: 0, expect: { errorCode: E.UNSUPPORTED_VERSION } }),
        send('a', 18, 3, software, { expect: { errorCode: 0 } }),
      ],
      groups: [],
    }),
  ),
  withTags(
    scenario('testApiVersionsRequestValidationV3', {
      mirrors: 'KafkaApisTest.testApiVersionsRequestValidationV3 / ApiVersionsRequest.isValid',
      description: 'ApiVersions v3 with an invalid client software name or version → INVALID_REQUEST (42) and an empty list',
      steps: [
        send('a', 18, 3, { clientSoftwareName: 'bad name!', clientSoftwareVersion: '1.0' }, { expect: { errorCode: E.INVALID_REQUEST } }),
        send('a', 18, 3, { clientSoftwareName: 'ok', clientSoftwareVersion: '' }, { expect: { errorCode: E.INVALID_REQUEST } }),
        send('a', 18, 4, { clientSoftwareName: '-dash', clientSoftwareVersion: '1' }, { expect: { errorCode: E.INVALID_REQUEST } }),
        send('a', 18, 3, { clientSoftwareName: 'a.b-c', clientSoftwareVersion: '1.2.3-SNAPSHOT' }, { expect: { errorCode: 0 } }),
      ],
      groups: [],
    }),
  ),
  withTags(
    scenario('testUnsupportedVersionClosesConnection', {
      mirrors: 'SocketServer / RequestContext.parseRequest (InvalidRequestException → close)',
      description: 'a version the broker does not speak of any API but ApiVersions closes the connection (JoinGroup v10, Metadata v13)',
      steps: [
        send('a', 11, 10, { groupId: 'g', sessionTimeoutMs: 10000, memberId: '', protocolType: 'consumer', protocols: [] }, { encodeVersion: 9, decodeVersion: 9, label: 'JoinGroup v10' }),
        send('b', 3, 13, { topics: null }, { encodeVersion: 12, decodeVersion: 12, label: 'Metadata v13' }),
        send('c', 18, 3, software, { expect: { errorCode: 0 } }),
      ],
      groups: [],
    }),
  ),
  withTags(
    scenario('testUnknownApiKeyClosesConnection', {
      mirrors: 'SocketServer (unknown API key → InvalidRequestException → close)',
      description: 'a request with API key 1000 closes the connection without an answer',
      steps: [{ op: 'raw', conn: 'a', bytes: () => rawFrame(1000, 0), label: 'api key 1000' } as Step, expectClosed('a', 3000)],
      groups: [],
    }),
  ),
];
