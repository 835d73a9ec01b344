// The draft policies (README, "Draft policies"): opt-in rules from the early KIP-345 draft and the KIP-423
// draft, on top of Kafka 3.9's coordinator. Where to look:
//
//   types.ts          the contract with the control plane (names, configs, results, read model)
//   config.ts         defaults (all off), validation, broker/group layering, the `--policy` text form
//   runtime.ts        GroupPolicies: what the coordinator and the rebalance engine call at their hook points
//   draft-errors.ts   kip345-draft-errors: the error table and the commit rules
//   join-reasons.ts   kip423-join-reasons: the JoinReason classifier (draft keywords, Java client strings)
//   state.ts          per-group policy state (held members, claims, mode, rebalance history)
export * from './types.js';
export {
  DEFAULT_POLICIES,
  MAX_POLICY_TIMEOUT_MS,
  PolicyError,
  PolicyRegistry,
  applyPolicyUpdate,
  formatPolicies,
  isPolicyName,
  mergePolicyUpdates,
  parseDuration,
  parsePolicies,
  validatePolicyUpdate,
} from './config.js';
export { DRAFT_ERROR_CODES, checkStaticCommit } from './draft-errors.js';
export { DRAFT_KEYWORDS, JAVA_CLIENT_REASONS, classifyJoinReason, type JoinReasonClassification } from './join-reasons.js';
export { GroupPolicies, type MemberOperation } from './runtime.js';
