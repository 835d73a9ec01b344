// The policy settings at run time: the broker's and each group's (config.ts's PolicyRegistry), the
// effective settings per group (cached: every hook asks), and what a change does to the groups.

import type { ClassicGroup } from '../group.js';
import type { GroupEventInput } from '../rebalance.js';
import { PolicyRegistry, policiesEqual, validatePolicyUpdate } from './config.js';
import type { PolicyConfig, PolicyName, PolicyUpdate } from './types.js';

/** What changing the settings needs from the coordinator. */
export interface SettingsHost {
  emit(event: GroupEventInput): void;
  groups(): ClassicGroup[];
  group(groupId: string): ClassicGroup | undefined;
}

/** Told when a group's effective settings changed (each policy brings its state in line). */
export type SettingsListener = (group: ClassicGroup, before: PolicyConfig, after: PolicyConfig) => void;

export class PolicySettings {
  readonly registry: PolicyRegistry;
  private readonly cache = new Map<string, PolicyConfig>();
  private listener: SettingsListener = () => {};

  constructor(
    private readonly host: SettingsHost,
    initial?: PolicyUpdate,
  ) {
    this.registry = new PolicyRegistry(initial);
  }

  /** Installs what runs when a group's settings change (the policies, once they exist). */
  onChange(listener: SettingsListener): void {
    this.listener = listener;
  }

  /** The effective settings of a group (existing or not). */
  config(groupId: string): PolicyConfig {
    let c = this.cache.get(groupId);
    if (!c) {
      c = this.registry.effective(groupId);
      this.cache.set(groupId, c);
    }
    return c;
  }

  on(group: ClassicGroup | string, name: PolicyName): boolean {
    return this.config(typeof group === 'string' ? group : group.groupId)[name].enabled;
  }

  setBroker(update: PolicyUpdate): void {
    const clean = validatePolicyUpdate(update);
    const before = new Map(this.host.groups().map((g) => [g.groupId, this.config(g.groupId)]));
    this.registry.setBroker(clean);
    this.cache.clear();
    this.host.emit({ type: 'policies-changed', groupId: '', scope: 'broker', policies: this.registry.brokerPolicies() });
    for (const g of this.host.groups()) this.reconcile(g, before.get(g.groupId)!, this.config(g.groupId));
  }

  setGroup(groupId: string, update: PolicyUpdate | null): void {
    const clean = update === null ? null : validatePolicyUpdate(update);
    const before = this.config(groupId);
    this.registry.setGroup(groupId, clean);
    this.cache.delete(groupId);
    const after = this.config(groupId);
    this.host.emit({ type: 'policies-changed', groupId, scope: 'group', policies: after });
    const group = this.host.group(groupId);
    if (group) this.reconcile(group, before, after);
  }

  private reconcile(group: ClassicGroup, before: PolicyConfig, after: PolicyConfig): void {
    if (policiesEqual(before, after) || group.is('Dead')) return;
    this.listener(group, before, after);
  }
}
