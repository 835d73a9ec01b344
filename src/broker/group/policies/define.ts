// What a policy declares about itself (definePolicy), and the types derived from such declarations.
// Each policy file exports one PolicyDefinition; list.ts lists them; everything else about the
// policies (POLICY_NAMES, PolicyConfig/PolicyUpdate, DEFAULT_POLICIES, validation, the text form,
// `kmock start --help`, the event union) is derived from that list.
//
// A leaf module: nothing here imports the policies at run time (list.ts and config.ts import this).

import type { EventBase } from '../events.js';
import type { PolicyHost } from './host.js';

/** Bad policy input (unknown name, wrong type, out-of-range timeout). A RangeError: callers map it to a 4xx. */
export class PolicyError extends RangeError {}

/** Largest timeout accepted (Kafka's ms settings are int32). */
export const MAX_POLICY_TIMEOUT_MS = 2_147_483_647;

// ---- settings ---------------------------------------------------------------------------------------

/** A true/false setting. */
export interface BooleanSetting {
  readonly kind: 'boolean';
  readonly default: boolean;
}

/** A duration in ms: an integer from `min` to MAX_POLICY_TIMEOUT_MS. */
export interface DurationSetting {
  readonly kind: 'duration';
  readonly default: number;
  readonly min: number;
}

export type SettingSpec = BooleanSetting | DurationSetting;

/** A policy's settings besides `enabled` (which every policy has, default false). */
export type PolicySettingSpecs = { readonly [field: string]: SettingSpec } & { readonly enabled?: never };

type SettingValue<S> = S extends DurationSetting ? number : S extends BooleanSetting ? boolean : never;

/** The settings that the text form's `NAME=VALUE` may set (durations: `NAME=30s`). */
type TextValueField<S> = { [K in keyof S]: [Extract<S[K], DurationSetting>] extends [never] ? never : K }[keyof S] & string;

// ---- type-level declarations --------------------------------------------------------------------------

/** What a policy adds to the coordinator's types: its events, rebalance triggers and removal causes. */
export interface PolicyTypes<N extends string = string> {
  /** The events it emits; each names it as `policy`. */
  events?: EventBase & { type: string; policy: N };
  /** The `rebalance-started` triggers its rules start rebalances with. */
  rebalanceTriggers?: string;
  /** The `member-removed` causes of the members it removes. */
  removalCauses?: string;
}

/** Carries a policy's PolicyTypes at the type level; at run time it is an empty object. */
export interface Declared<T> {
  readonly declared?: T;
}

/** `types: declared<{ events: ...; rebalanceTriggers: ...; removalCauses: ... }>()` in a definition. */
export function declared<T extends PolicyTypes>(): Declared<T> {
  return {};
}

// ---- the definition -----------------------------------------------------------------------------------

export interface PolicyDefinition<
  N extends string = string,
  S extends PolicySettingSpecs = PolicySettingSpecs,
  T extends PolicyTypes<N> = PolicyTypes<N>,
  P extends object = object,
> {
  /** The policy's name: the key of its settings, its events' `policy`, the text form's NAME. */
  readonly name: N;
  /** One line: what the policy does (for `kmock start --help` and the docs). */
  readonly summary: string;
  /** Its settings besides `enabled`, with kinds, limits and the defaults used once it is turned on. */
  readonly settings: S;
  /** The text form (`--policy`): which setting `NAME=VALUE` sets, and other names `NAME` goes by. */
  readonly text?: {
    /** A duration setting (definePolicy checks it). */
    readonly value?: string;
    /** E.g. the draft's Kafka-style setting name (`registration.timeout.ms`); lower case. */
    readonly aliases?: readonly string[];
  };
  /** Its events, rebalance triggers and removal causes (type level only). */
  readonly types?: Declared<T>;
  /**
   * The policy itself (a DraftPolicy), for one coordinator. Its type is inferred, not checked here:
   * DraftPolicy's `name` is a PolicyName, which is derived from these definitions. index.ts checks it.
   */
  create(host: PolicyHost): P;
}

/** Declares a policy (its file's one export for the list); checks it and returns it unchanged. */
export function definePolicy<const N extends string, const S extends PolicySettingSpecs = {}, T extends PolicyTypes<N> = {}, P extends object = object>(
  definition: PolicyDefinition<N, S, T, P> & { readonly text?: { readonly value?: TextValueField<S> } },
): PolicyDefinition<N, S, T, P> {
  return definition;
}

// ---- derived types ----------------------------------------------------------------------------------

type Simplify<T> = { -readonly [K in keyof T]: T[K] } & {};

/** A policy's settings object: `enabled` and its declared settings. */
export type SettingsOf<D> = D extends { readonly settings: infer S }
  ? Simplify<{ enabled: boolean } & { -readonly [K in keyof S]: SettingValue<S[K]> }>
  : never;

type TypesOf<D> = D extends { readonly types?: Declared<infer T> } ? T : never;

/** The events a list of definitions declares. */
export type EventsOf<D> = D extends unknown ? (TypesOf<D> extends { events: infer E } ? E : never) : never;
/** The rebalance triggers a list of definitions declares. */
export type RebalanceTriggersOf<D> = D extends unknown ? (TypesOf<D> extends { rebalanceTriggers: infer R } ? R : never) : never;
/** The removal causes a list of definitions declares. */
export type RemovalCausesOf<D> = D extends unknown ? (TypesOf<D> extends { removalCauses: infer R } ? R : never) : never;

/** The names of a list of definitions, as a tuple in list order. */
export type NamesOf<L extends readonly PolicyDefinition[]> = { readonly [I in keyof L]: L[I] extends { readonly name: infer N } ? N : never };

/** Every policy's settings, keyed by name. */
export type ConfigOf<D extends PolicyDefinition> = { [P in D as P['name']]: SettingsOf<P> };
