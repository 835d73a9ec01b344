// Strict-clients mode (docs/strict-clients.md): kmock answers as Kafka does and records what a
// correct client does not do. The recorder is findings.ts; the checks are by where they look.
export { ClientFindings, type ClientFinding, type FindingConnection, type FindingKindSummary, type FindingListener, type FindingRequest, type FindingsSummary } from './findings.js';
export { FINDING_KINDS, FINDING_KIND_NAMES, type FindingKind, type FindingKindInfo } from './kinds.js';
export { checkLeftover, checkUnadvertisedVersion, taggedSectionTags } from './frame-checks.js';
export { batchHeaderMismatches, checkAppendError, checkProduceBatches } from './batch-checks.js';
export { checkHeartbeatAnswer, checkJoinGroupRequest, noteJoinGroupAnswer, noteLeaveGroup } from './group-checks.js';
