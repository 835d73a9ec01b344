// SaslAuthenticate (36), v0-2. On a PLAINTEXT listener Kafka 3.9 answers it in
// KafkaApis.handleSaslAuthenticateRequest: ILLEGAL_SASL_STATE with the message below, no auth
// bytes, session lifetime 0, and the connection stays open.
import { createSaslAuthenticateResponse, ErrorCode } from '../../codec/index.js';
import { defineHandler } from './types.js';

export const saslAuthenticateHandler = defineHandler({
  apiKey: 36,
  minVersion: 0,
  maxVersion: 2,
  handle() {
    return createSaslAuthenticateResponse({
      errorCode: ErrorCode.ILLEGAL_SASL_STATE,
      errorMessage: 'SaslAuthenticate request received after successful authentication',
      authBytes: Buffer.alloc(0),
      sessionLifetimeMs: 0n,
    });
  },
});
