// The draft policies (docs/policies.md): opt-in rules from the early KIP-345 draft and the KIP-423
// draft, on top of Kafka 3.9's coordinator. Each is a plug-in of the coordinator's hook table
// (../hooks.ts). Where to look:
//
//   types.ts                   the contract with the control plane (names, configs, results, read model)
//   events.ts                  the policies' events, rebalance triggers and removal cause
//   config.ts                  defaults (all off), validation, broker/group layering, the `--policy` text form
//   settings.ts                the settings at run time (effective per group, what a change does)
//   host.ts                    what a policy is: DraftPolicy, its per-group state, the coordinator it sees
//   draft-errors.ts            kip345-draft-errors: the error table, the commit rules, claims
//   registration-timeout.ts    registration-timeout: offline static members
//   expansion-timeout.ts       expansion-timeout: held new static members
//   membership-modes.ts        membership-modes: static/dynamic mode and the draft's admin operations
//   join-reasons.ts            kip423-join-reasons: the JoinReason classifier and the draft's rejoin rules
//
// A new policy: its file (a DraftPolicy with the hooks it needs) and one line in createDraftPolicies
// (plus its settings in types.ts/config.ts, and its events in events.ts, if it has any).
import type { ClassicGroup } from '../group.js';
import { DraftErrorsPolicy } from './draft-errors.js';
import { ExpansionTimeoutPolicy } from './expansion-timeout.js';
import type { DraftPolicy, PolicyHost } from './host.js';
import { JoinReasonsPolicy } from './join-reasons.js';
import { MembershipModesPolicy } from './membership-modes.js';
import { RegistrationTimeoutPolicy } from './registration-timeout.js';
import type { PolicySettings } from './settings.js';
import type { GroupDetail, KafkaGroupDetail, MembershipChangeResult, OfflineStaticMember, StaticMembershipOptions } from './types.js';

export * from './types.js';
export type { PolicyEvent, PolicyRebalanceTrigger, PolicyRemovalCause } from './events.js';
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
export { DRAFT_ERROR_CODES, DraftErrorsPolicy, checkStaticCommit } from './draft-errors.js';
export { DRAFT_KEYWORDS, JAVA_CLIENT_REASONS, JoinReasonsPolicy, classifyJoinReason, type JoinReasonClassification } from './join-reasons.js';
export { ExpansionTimeoutPolicy } from './expansion-timeout.js';
export { MembershipModesPolicy } from './membership-modes.js';
export { RegistrationTimeoutPolicy } from './registration-timeout.js';
export { DraftPolicy, PerGroup, type PolicyHost } from './host.js';
export { PolicySettings } from './settings.js';

/** The operations the draft policies add to the coordinator's admin surface. */
export interface DraftOperations {
  enableStaticMembership(groupId: string, options?: StaticMembershipOptions): MembershipChangeResult;
  enableDynamicMembership(groupId: string): MembershipChangeResult;
  forceStaticRebalance(groupId: string): MembershipChangeResult;
  offlineStaticMembers(group: ClassicGroup): OfflineStaticMember[];
}

/** Every draft policy, in the order the hook chain runs them (it decides who answers first). */
export class DraftPolicies {
  readonly list: readonly DraftPolicy[];
  readonly operations: DraftOperations;
  readonly settings: PolicySettings;

  constructor(private readonly host: PolicyHost) {
    this.settings = host.settings;
    const modes = new MembershipModesPolicy(host);
    const registration = new RegistrationTimeoutPolicy(host);
    this.list = [new DraftErrorsPolicy(host), registration, new ExpansionTimeoutPolicy(host), modes, new JoinReasonsPolicy(host)];
    this.operations = {
      enableStaticMembership: (groupId, options) => modes.enableStaticMembership(groupId, options),
      enableDynamicMembership: (groupId) => modes.enableDynamicMembership(groupId),
      forceStaticRebalance: (groupId) => modes.forceStaticRebalance(groupId),
      offlineStaticMembers: (group) => registration.offlineStaticMembers(group),
    };
    host.settings.onChange((group, before, after) => {
      for (const p of this.list) p.settingsChanged?.(group, before, after);
    });
  }

  /** The policy of a class, for tests and inspection. */
  get<P extends DraftPolicy>(type: abstract new (host: PolicyHost) => P): P {
    const found = this.list.find((p): p is P => p instanceof type);
    if (!found) throw new Error(`no policy ${type.name}`);
    return found;
  }

  /** The control plane's read model: Kafka's view of the group, with what the policies keep. */
  describe(group: ClassicGroup, kafka: KafkaGroupDetail): GroupDetail {
    const detail: GroupDetail = {
      groupId: kafka.groupId,
      state: kafka.state,
      generationId: kafka.generationId,
      protocolType: kafka.protocolType,
      protocolName: kafka.protocolName,
      leaderId: kafka.leaderId,
      members: kafka.members.map((m) => ({ ...m, offlineSince: null })),
      pendingMemberIds: kafka.pendingMemberIds,
      offlineStaticMembers: [],
      heldStaticMembers: [],
      policies: this.host.settings.config(group.groupId),
      groupPolicies: this.host.settings.registry.groupOverride(group.groupId),
      mode: null,
      modePinned: false,
      rebalances: kafka.rebalances,
    };
    this.host.hooks.run('describe', group, detail);
    return detail;
  }
}
