// The draft policies (docs/policies.md): opt-in rules from the early KIP-345 draft and the KIP-423
// draft, on top of Kafka 3.9's coordinator. Each is a plug-in of the coordinator's hook table
// (../hooks.ts). Where to look:
//
//   list.ts                    the list of policies, in hook-chain order: everything below is derived from it
//   define.ts                  what a policy declares (definePolicy): name, summary, settings, text form, events
//   types.ts                   the contract with the control plane (names, configs, results, read model)
//   events.ts                  the policies' events, rebalance triggers and removal causes (unions over the list)
//   config.ts                  defaults (all off), validation, broker/group layering, the `--policy` text form
//   settings.ts                the settings at run time (effective per group, what a change does)
//   host.ts                    what a policy is: DraftPolicy, its per-group state, the coordinator it sees
//   draft-errors.ts            kip345-draft-errors: the error table, the commit rules, claims
//   registration-timeout.ts    registration-timeout: offline static members
//   expansion-timeout.ts       expansion-timeout: held new static members
//   membership-modes.ts        membership-modes: static/dynamic mode and the draft's admin operations
//   join-reasons.ts            kip423-join-reasons: the JoinReason classifier and the draft's rejoin rules
//
// A new policy: its file (a DraftPolicy with the hooks it needs, and a definePolicy(...) declaring
// its name, summary, settings, text form and events) and one line in list.ts.
import type { ClassicGroup } from '../group.js';
import type { DraftPolicy, PolicyHost } from './host.js';
import { POLICIES } from './list.js';
import { MembershipModesPolicy } from './membership-modes.js';
import { RegistrationTimeoutPolicy } from './registration-timeout.js';
import type { PolicySettings } from './settings.js';
import type { GroupDetail, KafkaGroupDetail, MembershipChangeResult, OfflineStaticMember, StaticMembershipOptions } from './types.js';

export * from './types.js';
export type { PolicyEvent, PolicyRebalanceTrigger, PolicyRemovalCause } from './events.js';
export { POLICIES } from './list.js';
export {
  declared,
  definePolicy,
  type BooleanSetting,
  type DurationSetting,
  type PolicyDefinition,
  type PolicySettingSpecs,
  type PolicyTypes,
  type SettingSpec,
} from './define.js';
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
export { DRAFT_ERRORS, DRAFT_ERROR_CODES, DraftErrorsPolicy, checkStaticCommit, type DraftErrorEvent } from './draft-errors.js';
export {
  DRAFT_KEYWORDS,
  JAVA_CLIENT_REASONS,
  JOIN_REASONS,
  JoinReasonsPolicy,
  classifyJoinReason,
  type JoinReasonClassification,
  type JoinReasonEvent,
} from './join-reasons.js';
export { EXPANSION_TIMEOUT, ExpansionTimeoutPolicy, type ExpansionTimeoutEvent } from './expansion-timeout.js';
export { MEMBERSHIP_MODES, MembershipModesPolicy, type MembershipModesEvent } from './membership-modes.js';
export { REGISTRATION_TIMEOUT, RegistrationTimeoutPolicy, type RegistrationTimeoutEvent } from './registration-timeout.js';
export { DraftPolicy, PerGroup, type PolicyHost } from './host.js';
export { PolicySettings } from './settings.js';

/** The operations the draft policies add to the coordinator's admin surface. */
export interface DraftOperations {
  enableStaticMembership(groupId: string, options?: StaticMembershipOptions): MembershipChangeResult;
  enableDynamicMembership(groupId: string): MembershipChangeResult;
  forceStaticRebalance(groupId: string): MembershipChangeResult;
  offlineStaticMembers(group: ClassicGroup): OfflineStaticMember[];
}

/** Every draft policy of one coordinator, in list order (the order the hook chain runs them: it decides who answers first). */
export class DraftPolicies {
  readonly list: readonly DraftPolicy[];
  readonly operations: DraftOperations;
  readonly settings: PolicySettings;

  constructor(private readonly host: PolicyHost) {
    this.settings = host.settings;
    const list: DraftPolicy[] = POLICIES.map((p) => p.create(host));
    this.list = list;
    // The draft's admin operations belong to two of the policies.
    const modes = this.get(MembershipModesPolicy);
    const registration = this.get(RegistrationTimeoutPolicy);
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
