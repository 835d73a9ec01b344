// ApiVersions (18): the APIs and versions kmock serves. A version kmock does not speak gets
// error 35 (UNSUPPORTED_VERSION) in the v0 layout with the ApiVersions range, so the client
// can retry with a version both sides know (KIP-511), exactly as Kafka does.
import { APIS, createApiVersionsResponse, encodeResponseAtVersion, ErrorCode } from '../../codec/index.js';
import { defineHandler } from './types.js';

/**
 * KIP-584 features as a Kafka 3.9 KRaft node reports them: metadata.version 1-21 (21 = 3.9-IV0,
 * finalized at 21). Features whose lowest version is 0 (kraft.version) are hidden below v4, as
 * Kafka does for older clients. Checked against Kafka 3.9.1 by the conformance run.
 */
const METADATA_VERSION = 21;
const FINALIZED_FEATURES_EPOCH = 1n;

function supportedFeatures(version: number) {
  const features = [{ name: 'metadata.version', minVersion: 1, maxVersion: METADATA_VERSION }];
  if (version >= 4) features.push({ name: 'kraft.version', minVersion: 0, maxVersion: 1 });
  return features;
}

/** KIP-511: software name and version must match this, else INVALID_REQUEST. */
const SOFTWARE_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

export const apiVersionsHandler = defineHandler({
  apiKey: 18,
  minVersion: 0,
  maxVersion: 4,
  handle(ctx, req) {
    if (ctx.apiVersion >= 3) {
      if (!SOFTWARE_PATTERN.test(req.clientSoftwareName) || !SOFTWARE_PATTERN.test(req.clientSoftwareVersion)) {
        return createApiVersionsResponse({ errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [] });
      }
      ctx.connection.clientSoftwareName = req.clientSoftwareName;
      ctx.connection.clientSoftwareVersion = req.clientSoftwareVersion;
    }
    const v = ctx.apiVersion;
    return createApiVersionsResponse({
      errorCode: 0,
      apiKeys: [...ctx.services.apis],
      throttleTimeMs: 0,
      supportedFeatures: v >= 3 ? supportedFeatures(v) : [],
      finalizedFeaturesEpoch: v >= 3 ? FINALIZED_FEATURES_EPOCH : -1n,
      finalizedFeatures: v >= 3 ? [{ name: 'metadata.version', maxVersionLevel: METADATA_VERSION, minVersionLevel: METADATA_VERSION }] : [],
    });
  },
  onUnsupportedVersion(correlationId) {
    const body = createApiVersionsResponse({
      errorCode: ErrorCode.UNSUPPORTED_VERSION,
      apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }],
    });
    // The header is v0 for ApiVersions whatever the version; the body is written at v0.
    return encodeResponseAtVersion(APIS[18], 0, 0, correlationId, body);
  },
});
