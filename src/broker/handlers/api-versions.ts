// ApiVersions (18): the APIs and versions kmock serves. A version kmock does not speak gets
// error 35 (UNSUPPORTED_VERSION) in the v0 layout with the ApiVersions range, so the client
// can retry with a version both sides know (KIP-511), exactly as Kafka does.
import { APIS, createApiVersionsResponse, encodeResponseAtVersion } from '../../codec/index.js';
import { ErrorCode } from '../errors.js';
import { defineHandler } from './types.js';

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
    return createApiVersionsResponse({ errorCode: 0, apiKeys: ctx.broker.advertisedApis(), throttleTimeMs: 0 });
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
