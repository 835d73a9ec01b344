// The events of the draft policies, part of the coordinator's event stream (../events.ts). Never
// emitted while every policy is off; each names its policy (`policy`), so a listener can tell them
// from Kafka's (isPolicyEvent). Also the rebalance triggers and the removal cause the policies add.
// Each policy declares its own in its definition (definePolicy's `types`); these are their unions
// over the list of policies (list.ts), plus `policies-changed`, which is the settings'.

import type { EventBase } from '../events.js';
import type { EventsOf, RebalanceTriggersOf, RemovalCausesOf } from './define.js';
import type { PolicyConfig, PolicyDefinitions } from './types.js';

/** Why a policy took a member out of its group. */
export type PolicyRemovalCause = RemovalCausesOf<PolicyDefinitions>;

/** Which policy rule started a rebalance. */
export type PolicyRebalanceTrigger = RebalanceTriggersOf<PolicyDefinitions>;

export type PolicyEvent =
  | (EventBase & {
      /** Policies changed: `scope` broker (groupId "") or one group; `policies` is the new effective set. */
      type: 'policies-changed';
      scope: 'broker' | 'group';
      policies: PolicyConfig;
    })
  | EventsOf<PolicyDefinitions>;
