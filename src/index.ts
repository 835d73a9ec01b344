// kmock's programmatic API: start a broker for tests, or use the codec directly.
export { startKmock, type Kmock, type KmockOptions } from './broker/server.js';
export { DEFAULT_CONFIG, type BrokerConfig } from './broker/config.js';
export { ErrorCode, errorName } from './broker/errors.js';
export * as codec from './codec/index.js';
export { ControlPlane } from './broker/control/index.js';
export { POLICY_NAMES, type PolicyConfig, type PolicyName, type PolicyUpdate, type MembershipChangeResult } from './broker/group/policies/types.js';
