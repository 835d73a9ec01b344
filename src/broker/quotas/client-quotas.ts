// Client quotas as a KRaft cluster keeps them: per entity (a user, a client id, both, or an IP; a
// null name is the entity type's default), the quota values set through AlterClientQuotas
// (metadata/.../controller/ClientQuotaControlManager.java, its validation and texts) and read back
// through DescribeClientQuotas (metadata/.../image/ClientQuotasImage.describe, its filter rules).
//
// kmock stores and describes quotas; it does not throttle clients by them (docs/security.md).
//
// Kafka keeps entities and values in java.util.HashMaps: where its answer or its first error
// depends on that order, kmock walks the names in the same order (config/java-hash.ts).
import { isIP } from 'node:net';
import { ErrorCode } from '../../codec/index.js';
import { javaHashOrder } from '../config/java-hash.js';

export const USER = 'user';
export const CLIENT_ID = 'client-id';
export const IP = 'ip';

/** Entity type → name (null: the default entity of that type). */
export type QuotaEntity = ReadonlyMap<string, string | null>;

/** QuotaConfigs.userAndClientQuotaConfigs / ipConfigs: the keys and their ConfigDef types. */
const USER_CLIENT_KEYS: ReadonlyMap<string, 'LONG' | 'DOUBLE' | 'INT'> = new Map([
  ['producer_byte_rate', 'LONG'],
  ['consumer_byte_rate', 'LONG'],
  ['request_percentage', 'DOUBLE'],
  ['controller_mutation_rate', 'DOUBLE'],
]);
const IP_KEYS: ReadonlyMap<string, 'LONG' | 'DOUBLE' | 'INT'> = new Map([['connection_creation_rate', 'INT']]);

/** One AlterClientQuotas entry (AlterClientQuotasRequest.entries: ops with a null value remove). */
export interface QuotaAlteration {
  entity: QuotaEntity;
  ops: ReadonlyArray<{ key: string; value: number | null }>;
}

export interface QuotaResult {
  entity: QuotaEntity;
  errorCode: number;
  errorMessage: string | null;
}

/** DescribeClientQuotasRequest's filter components (match types 0 exact, 1 default, 2 specified). */
export interface QuotaFilterComponent {
  entityType: string;
  matchType: number;
  match: string | null;
}

export interface DescribedQuota {
  entity: Array<{ entityType: string; entityName: string | null }>;
  values: Array<{ key: string; value: number }>;
}

/** A filter Kafka refuses: the error the whole DescribeClientQuotas answers with. */
export class QuotaFilterError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** What the data dir keeps: each entity with its values. */
export interface SavedClientQuota {
  entity: Array<[string, string | null]>;
  quotas: Array<[string, number]>;
}

interface Entry {
  entity: QuotaEntity;
  quotas: Map<string, number>;
}

export class ClientQuotaStore {
  private readonly byEntity = new Map<string, Entry>();
  private readonly listeners: Array<() => void> = [];

  /** ClientQuotaControlManager.alterClientQuotas: one result per distinct entity, changes made unless validateOnly. */
  alter(alterations: readonly QuotaAlteration[], validateOnly: boolean): QuotaResult[] {
    const results = new Map<string, QuotaResult>();
    const staged: Array<{ entity: QuotaEntity; key: string; value: number | null }> = [];
    const fail = (entity: QuotaEntity, message: string) => results.set(entityKey(entity), { entity, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: message });
    for (const a of alterations) {
      const key = entityKey(a.entity);
      const changes = new Map<string, number | null>();
      for (const op of a.ops) {
        if (changes.has(op.key)) fail(a.entity, `Duplicate quota key ${op.key} not updating quota for this entity ${entityString(a.entity)}`);
        else changes.set(op.key, op.value);
      }
      // An entity already answered (named twice, or with a duplicate key) is ignored, and says so.
      if (results.has(key)) {
        fail(a.entity, `Ignoring duplicate entity ${entityString(a.entity)}`);
        continue;
      }
      const error = this.validate(a.entity, changes);
      if (error !== undefined) {
        fail(a.entity, error);
        continue;
      }
      const current = this.byEntity.get(key)?.quotas;
      for (const [k, v] of changes) {
        if (v === null ? current?.has(k) : current?.get(k) !== v) staged.push({ entity: a.entity, key: k, value: v });
      }
      results.set(key, { entity: a.entity, errorCode: ErrorCode.NONE, errorMessage: null });
    }
    if (!validateOnly && staged.length > 0) {
      for (const s of staged) this.apply(s.entity, s.key, s.value);
      for (const fn of this.listeners) fn();
    }
    return [...results.values()];
  }

  /** ClientQuotasImage.describe: the entities the filter matches, with their values. Throws QuotaFilterError. */
  describe(components: readonly QuotaFilterComponent[], strict: boolean): DescribedQuota[] {
    const exact = new Map<string, string | null>();
    const specified = new Set<string>();
    const invalid = (m: string) => new QuotaFilterError(ErrorCode.INVALID_REQUEST, m);
    for (const c of components) {
      if (c.entityType === '') throw invalid('Invalid empty entity type.');
      if (exact.has(c.entityType) || specified.has(c.entityType)) throw invalid(`Entity type ${c.entityType} cannot appear more than once in the filter.`);
      if (c.entityType !== IP && c.entityType !== USER && c.entityType !== CLIENT_ID) {
        throw new QuotaFilterError(ErrorCode.UNSUPPORTED_VERSION, `Unsupported entity type ${c.entityType}`);
      }
      switch (c.matchType) {
        case 0:
          if (c.match === null) throw invalid('Request specified MATCH_TYPE_EXACT, but set match string to null.');
          exact.set(c.entityType, c.match);
          break;
        case 1:
          if (c.match !== null) throw invalid('Request specified MATCH_TYPE_DEFAULT, but also specified a match string.');
          exact.set(c.entityType, null);
          break;
        case 2:
          if (c.match !== null) throw invalid('Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.');
          specified.add(c.entityType);
          break;
        default:
          throw invalid(`Unknown match type ${c.matchType}`);
      }
    }
    const has = (t: string) => exact.has(t) || specified.has(t);
    if (has(IP) && (has(USER) || has(CLIENT_ID))) {
      throw invalid('Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.');
    }
    const out: DescribedQuota[] = [];
    for (const { entity, quotas } of this.byEntity.values()) {
      if (strict && entity.size !== exact.size + specified.size) continue;
      if ([...exact].some(([t, name]) => !entity.has(t) || entity.get(t) !== name)) continue;
      if ([...specified].some((t) => !entity.has(t))) continue;
      out.push({
        // ClientQuotaControlManager.replay builds each entity as new HashMap<>(2).
        entity: entityOrder(entity, 2).map((t) => ({ entityType: t, entityName: entity.get(t) ?? null })),
        values: javaHashOrder(quotas.keys()).map((key) => ({ key, value: quotas.get(key)! })),
      });
    }
    return out;
  }

  entries(): SavedClientQuota[] {
    return [...this.byEntity.values()].map((e) => ({ entity: [...e.entity], quotas: [...e.quotas] }));
  }

  /** Puts saved quotas back (at start; no change event). */
  load(saved: readonly SavedClientQuota[]): void {
    this.byEntity.clear();
    for (const s of saved) {
      const entity = new Map(s.entity);
      this.byEntity.set(entityKey(entity), { entity, quotas: new Map(s.quotas) });
    }
  }

  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  /** validateEntity, configKeysForEntityType and validateQuotaKeyValue: the first problem's text. */
  private validate(entity: QuotaEntity, changes: ReadonlyMap<string, number | null>): string | undefined {
    if (entity.size === 0) return 'Invalid empty client quota entity';
    for (const type of entityOrder(entity)) {
      if (type !== USER && type !== CLIENT_ID && type !== IP) return `Unhandled client quota entity type: ${type}`;
      if (entity.get(type) === '') return `Empty ${type} not supported`;
    }
    let keys: ReadonlyMap<string, string>;
    if (entity.has(IP)) {
      if (entity.has(USER) || entity.has(CLIENT_ID)) return 'Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId';
      const ip = entity.get(IP) ?? null;
      // InetAddress.getByName: an address, or a name it can resolve; kmock takes addresses and localhost.
      if (ip !== null && isIP(ip) === 0 && ip !== 'localhost') return `${ip} is not a valid IP or resolvable host.`;
      keys = IP_KEYS;
    } else {
      keys = USER_CLIENT_KEYS;
    }
    for (const key of javaHashOrder(changes.keys())) {
      const value = changes.get(key)!;
      if (value === null) continue;
      const type = keys.get(key);
      if (type === undefined) return `Invalid configuration key ${key}`;
      if (value <= 0) return `Quota ${key} must be greater than 0`;
      if (type === 'INT' && value > 2147483647) return `Proposed value for ${key} is too large for an INT.`;
      if (type === 'LONG' && value > 9223372036854775807) return `Proposed value for ${key} is too large for a LONG.`;
      if (type !== 'DOUBLE' && Math.abs(value % 1) > 1e-6) return `${key} cannot be a fractional value.`;
    }
    return undefined;
  }

  private apply(entity: QuotaEntity, key: string, value: number | null): void {
    const k = entityKey(entity);
    let e = this.byEntity.get(k);
    if (value === null) {
      e?.quotas.delete(key);
      if (e !== undefined && e.quotas.size === 0) this.byEntity.delete(k);
      return;
    }
    if (e === undefined) this.byEntity.set(k, (e = { entity: new Map(entity), quotas: new Map() }));
    e.quotas.set(key, value);
  }
}

/** An entity's types as its HashMap(initialCapacity) iterates them. */
export function entityOrder(entity: QuotaEntity, initialCapacity = entity.size): string[] {
  return javaHashOrder(entity.keys(), undefined, initialCapacity);
}

function entityKey(entity: QuotaEntity): string {
  return JSON.stringify([...entity].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** ClientQuotaEntity.toString: "ClientQuotaEntity(entries={user=alice, client-id=null})". */
function entityString(entity: QuotaEntity): string {
  return `ClientQuotaEntity(entries={${entityOrder(entity).map((t) => `${t}=${entity.get(t) ?? 'null'}`).join(', ')}})`;
}
