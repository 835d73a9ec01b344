// What a draft policy is made of: the coordinator services it may use (PolicyHost), its own state
// per group (PerGroup), and the base class every policy file extends (DraftPolicy). A policy is a
// plug-in of the coordinator's hook table (../hooks.ts): it implements the hooks it needs and acts
// on the groups it is enabled for. See docs/policies.md for the rules as users see them.

import type { Clock, Timers } from '../clock.js';
import type { ClassicGroup } from '../group.js';
import type { GroupPlugin, HookChain, MemberJoinRequest } from '../hooks.js';
import type { GroupEventInput, RebalanceEngine } from '../rebalance.js';
import type { PolicySettings } from './settings.js';
import type { PolicyConfig, PolicyName } from './types.js';

/** The coordinator as a policy sees it. */
export interface PolicyHost {
  readonly clock: Clock;
  readonly timers: Timers;
  readonly engine: RebalanceEngine;
  /** The other plug-ins, for the general questions (`memberAway`, `membershipMode`, ...). */
  readonly hooks: HookChain;
  readonly settings: PolicySettings;
  /** Queue an event; delivered once the current operation has finished. */
  emit(event: GroupEventInput): void;
  /** Wraps a timer callback as a coordinator operation. */
  onTimer(fn: () => void): () => void;
  /** The registered group with this id (a timer checks that its group is still the current one). */
  group(groupId: string): ClassicGroup | undefined;
  /**
   * Carries on with a known member's JoinGroup that a policy held back. `inPlace`: the member was
   * gone and comes back with its own id (in Stable: the current generation, no rebalance).
   */
  resumeJoin(group: ClassicGroup, join: MemberJoinRequest, inPlace: boolean): void;
}

/** A policy's state for each group, created on first use and forgotten with the group. */
export class PerGroup<S> {
  private readonly states = new WeakMap<ClassicGroup, S>();

  constructor(private readonly create: () => S) {}

  of(group: ClassicGroup): S {
    let s = this.states.get(group);
    if (s === undefined) {
      s = this.create();
      this.states.set(group, s);
    }
    return s;
  }

  /** The state if the policy ever kept any for the group. */
  peek(group: ClassicGroup): S | undefined {
    return this.states.get(group);
  }
}

/** One draft policy. Subclasses add the hooks of ../hooks.ts they need. */
export abstract class DraftPolicy<S = unknown> implements GroupPlugin {
  abstract readonly name: PolicyName;
  protected abstract readonly state: PerGroup<S>;

  constructor(protected readonly host: PolicyHost) {}

  /** Hooks run only for the groups the policy is enabled for. */
  appliesTo(group: ClassicGroup): boolean {
    return this.host.settings.on(group, this.name);
  }

  /** The policy's state for a group, for tests and inspection; undefined if it never kept any. */
  stateOf(group: ClassicGroup): Readonly<S> | undefined {
    return this.state.peek(group);
  }

  /** The group's settings changed (every policy is told, enabled or not): bring the state in line. */
  settingsChanged?(group: ClassicGroup, before: PolicyConfig, after: PolicyConfig): void;

  /** The group is gone or the coordinator closes. */
  stopTimers?(group: ClassicGroup): void;

  protected config(group: ClassicGroup): PolicyConfig {
    return this.host.settings.config(group.groupId);
  }
}
