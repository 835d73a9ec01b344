// Policy settings: defaults (everything off), validation of updates, the broker/group layering, and
// the text form used by `--policy`, `--set policies=...` and config files. All of it read from the
// policies' definitions (list.ts, define.ts): nothing here names a policy.

import { MAX_POLICY_TIMEOUT_MS, PolicyError, type SettingSpec } from './define.js';
import { POLICIES } from './list.js';
import { POLICY_NAMES, type PolicyConfig, type PolicyName, type PolicyUpdate } from './types.js';

export { MAX_POLICY_TIMEOUT_MS, PolicyError };

/** Every policy off. The other settings default to what each policy declares, used once it is turned on. */
export const DEFAULT_POLICIES: Readonly<PolicyConfig> = Object.freeze(
  Object.fromEntries(
    POLICIES.map((p) => {
      const defaults: Record<string, unknown> = { enabled: false };
      for (const [field, spec] of Object.entries(p.settings as Record<string, SettingSpec>)) defaults[field] = spec.default;
      return [p.name, Object.freeze(defaults)];
    }),
  ),
) as PolicyConfig;

/** The fields of each policy, with their kind: `enabled`, then the ones it declares. */
const FIELDS = Object.fromEntries(
  POLICIES.map((p): [PolicyName, Record<string, SettingSpec>] => [p.name, { enabled: { kind: 'boolean', default: false }, ...p.settings }]),
) as Record<PolicyName, Record<string, SettingSpec>>;

/** The field `NAME=VALUE` sets in the text form, for the policies that declare one. */
const TEXT_VALUE_FIELD: Partial<Record<PolicyName, string>> = Object.fromEntries(
  POLICIES.flatMap((p) => {
    const text: { value?: string } | undefined = p.text;
    return text?.value === undefined ? [] : [[p.name, text.value]];
  }),
);

export function isPolicyName(name: string): name is PolicyName {
  return (POLICY_NAMES as readonly string[]).includes(name);
}

export function clonePolicies(c: PolicyConfig): PolicyConfig {
  const out = {} as Record<PolicyName, unknown>;
  for (const name of POLICY_NAMES) out[name] = { ...c[name] };
  return out as PolicyConfig;
}

/**
 * Checks an update coming from outside (API, JSON, config) and returns a clean copy. `true`/`false`
 * stand for `{ enabled: true|false }`. Throws PolicyError naming the first problem.
 */
export function validatePolicyUpdate(update: unknown): PolicyUpdate {
  if (typeof update !== 'object' || update === null || Array.isArray(update)) {
    throw new PolicyError('a policy update must be an object keyed by policy name');
  }
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, raw] of Object.entries(update as Record<string, unknown>)) {
    if (raw === undefined) continue;
    if (!isPolicyName(name)) throw new PolicyError(`unknown policy "${name}" (policies: ${POLICY_NAMES.join(', ')})`);
    const value = typeof raw === 'boolean' ? { enabled: raw } : raw;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new PolicyError(`policy "${name}" must be true, false or an object`);
    }
    const entry: Record<string, unknown> = {};
    for (const [field, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined) continue;
      const kind = Object.hasOwn(FIELDS[name], field) ? FIELDS[name][field] : undefined; // own fields only: not "toString"
      if (kind === undefined) {
        throw new PolicyError(`unknown field "${field}" of policy "${name}" (fields: ${Object.keys(FIELDS[name]).join(', ')})`);
      }
      if (kind.kind === 'boolean') {
        if (typeof v !== 'boolean') throw new PolicyError(`${name}.${field} must be true or false`);
      } else if (typeof v !== 'number' || !Number.isInteger(v) || v < kind.min || v > MAX_POLICY_TIMEOUT_MS) {
        throw new PolicyError(`${name}.${field} must be an integer number of ms from ${kind.min} to ${MAX_POLICY_TIMEOUT_MS}`);
      }
      entry[field] = v;
    }
    out[name] = entry;
  }
  return out as PolicyUpdate;
}

/** `base` with `update` applied (a new object). */
export function applyPolicyUpdate(base: PolicyConfig, update: PolicyUpdate | null | undefined): PolicyConfig {
  const out = clonePolicies(base);
  if (!update) return out;
  for (const name of POLICY_NAMES) {
    const u = update[name];
    if (u) Object.assign(out[name], u);
  }
  return out;
}

/** Two updates as one (`b` wins field by field). */
export function mergePolicyUpdates(a: PolicyUpdate | null | undefined, b: PolicyUpdate | null | undefined): PolicyUpdate {
  const out: Record<string, Record<string, unknown>> = {};
  for (const name of POLICY_NAMES) {
    const merged = { ...(a?.[name] ?? {}), ...(b?.[name] ?? {}) };
    if (Object.keys(merged).length > 0) out[name] = merged;
  }
  return out as PolicyUpdate;
}

export function policiesEqual(a: PolicyConfig, b: PolicyConfig): boolean {
  return POLICY_NAMES.every((n) => JSON.stringify(a[n]) === JSON.stringify(b[n]));
}

// ---- text form ------------------------------------------------------------------------------------

const ON = new Set(['on', 'true', 'yes', 'enabled', 'enable']);
const OFF = new Set(['off', 'false', 'no', 'disabled', 'disable']);

/** Other names a policy goes by (e.g. the draft's Kafka-style setting names): `registration.timeout.ms=15m`. */
const KEY_ALIASES: Record<string, PolicyName> = Object.fromEntries(
  POLICIES.flatMap((p) => {
    const text: { aliases?: readonly string[] } | undefined = p.text;
    return (text?.aliases ?? []).map((alias) => [alias, p.name]);
  }),
);

/** "500", "500ms", "30s", "15m", "15min", "2h" → ms. */
export function parseDuration(text: string): number {
  const m = /^(\d+)\s*(ms|s|m|min|h)?$/i.exec(text.trim());
  if (!m) throw new PolicyError(`"${text}" is not a duration (e.g. 900000, 900000ms, 30s, 15m, 1h)`);
  const n = Number(m[1]);
  const unit = (m[2] ?? 'ms').toLowerCase();
  const ms = unit === 'h' ? n * 3_600_000 : unit === 'm' || unit === 'min' ? n * 60_000 : unit === 's' ? n * 1000 : n;
  if (ms > MAX_POLICY_TIMEOUT_MS) throw new PolicyError(`duration "${text}" is too long (at most ${MAX_POLICY_TIMEOUT_MS} ms)`);
  return ms;
}

/**
 * Parses the text form of a policy update, as given to `--policy` (repeatable), `--set
 * policies=...` or a config file's `policies=` line. Entries are separated by commas or spaces:
 *
 *   kip345-draft-errors                 turn a policy on
 *   kip345-draft-errors=off             turn it off (on|off|true|false|yes|no)
 *   registration-timeout=15m            turn it on with that timeout (ms by default; s, m, min, h)
 *   expansion-timeout=30s
 *   registration.timeout.ms=900000      the draft's setting names work too
 *   all | none                          every policy on | off
 *
 * Later entries win. Throws PolicyError on anything else.
 */
export function parsePolicies(text: string | readonly string[]): PolicyUpdate {
  const parts = (typeof text === 'string' ? [text] : text).flatMap((t) => t.split(/[,\s;]+/)).filter((p) => p !== '');
  let out: PolicyUpdate = {};
  for (const part of parts) {
    const eq = part.search(/[=:]/);
    const rawName = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    const value = eq < 0 ? undefined : part.slice(eq + 1).trim();
    if (rawName === 'all' || rawName === 'none') {
      if (value !== undefined) throw new PolicyError(`"${rawName}" takes no value`);
      const enabled = rawName === 'all';
      const every: Record<string, { enabled: boolean }> = {};
      for (const n of POLICY_NAMES) every[n] = { enabled };
      out = mergePolicyUpdates(out, every as PolicyUpdate);
      continue;
    }
    const name = KEY_ALIASES[rawName] ?? rawName;
    if (!isPolicyName(name)) {
      throw new PolicyError(`unknown policy "${rawName}" (policies: ${POLICY_NAMES.join(', ')}, or all/none)`);
    }
    let entry: Record<string, unknown>;
    if (value === undefined || ON.has(value.toLowerCase())) {
      entry = { enabled: true };
    } else if (OFF.has(value.toLowerCase())) {
      entry = { enabled: false };
    } else {
      const field = TEXT_VALUE_FIELD[name];
      if (field === undefined) throw new PolicyError(`policy "${name}" takes on or off, not "${value}"`);
      entry = { enabled: true, [field]: parseDuration(value) };
    }
    out = mergePolicyUpdates(out, validatePolicyUpdate({ [name]: entry }));
  }
  return out;
}

/** The text form of the enabled policies (what parsePolicies reads back), or "none". */
export function formatPolicies(config: PolicyConfig): string {
  const parts: string[] = [];
  for (const name of POLICY_NAMES) {
    const p = config[name] as { enabled: boolean } & Record<string, unknown>;
    if (!p.enabled) continue;
    const field = TEXT_VALUE_FIELD[name];
    parts.push(field === undefined ? name : `${name}=${String(p[field])}ms`);
  }
  return parts.length === 0 ? 'none' : parts.join(',');
}

// ---- broker + group layering ------------------------------------------------------------------------

/** The broker's policies and each group's own overrides. */
export class PolicyRegistry {
  private broker: PolicyConfig;
  private readonly overrides = new Map<string, PolicyUpdate>();

  constructor(initial?: PolicyUpdate) {
    this.broker = applyPolicyUpdate(DEFAULT_POLICIES, initial ? validatePolicyUpdate(initial) : undefined);
  }

  brokerPolicies(): PolicyConfig {
    return clonePolicies(this.broker);
  }

  groupOverride(groupId: string): PolicyUpdate | null {
    const o = this.overrides.get(groupId);
    return o ? mergePolicyUpdates(o, undefined) : null;
  }

  /** Effective policies of a group: the broker's, overlaid with the group's own settings. */
  effective(groupId: string): PolicyConfig {
    return applyPolicyUpdate(this.broker, this.overrides.get(groupId));
  }

  /** Groups with their own settings. */
  groupsWithOverrides(): string[] {
    return [...this.overrides.keys()];
  }

  setBroker(update: PolicyUpdate): void {
    this.broker = applyPolicyUpdate(this.broker, validatePolicyUpdate(update));
  }

  /** Merges into the group's own settings; null removes them. */
  setGroup(groupId: string, update: PolicyUpdate | null): void {
    if (update === null) {
      this.overrides.delete(groupId);
      return;
    }
    const merged = mergePolicyUpdates(this.overrides.get(groupId), validatePolicyUpdate(update));
    if (Object.keys(merged).length === 0) this.overrides.delete(groupId);
    else this.overrides.set(groupId, merged);
  }
}
