// SaslHandshake (17), v0-1. kmock listens PLAINTEXT only. On a PLAINTEXT listener Kafka 3.9's
// channel has no SASL authenticator, so the request reaches KafkaApis.handleSaslHandshakeRequest,
// which always answers ILLEGAL_SASL_STATE with no mechanisms and keeps the connection open; the
// API is advertised in ApiVersions like on any Kafka listener.
import { createSaslHandshakeResponse, ErrorCode } from '../../codec/index.js';
import { defineHandler } from './types.js';

export const saslHandshakeHandler = defineHandler({
  apiKey: 17,
  minVersion: 0,
  maxVersion: 1,
  handle() {
    return createSaslHandshakeResponse({ errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] });
  },
});
