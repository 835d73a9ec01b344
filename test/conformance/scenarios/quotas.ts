// AlterClientQuotas (49) and DescribeClientQuotas (48) as a Kafka 3.9 KRaft cluster answers them:
// the controller's validation (metadata/.../controller/ClientQuotaControlManager.java) and the
// broker's describe filter (metadata/.../image/ClientQuotasImage.describe); ClientQuotasRequestTest
// in Kafka covers the same ground. Quotas are cluster-wide, so every entity name is in the run's
// namespace (c.t(...)), filters are exact, and each scenario removes what it set. A Kafka broker
// sees a change only once the controller's record reaches its metadata image: a short wait
// follows each change.
import type { Ctx, Scenario, Step } from '../runner.js';
import { E, scenario, send, wait } from './dsl.js';

const tag = (s: Scenario): Scenario => ({ ...s, tags: ['admin', 'quotas'], groups: [] });

/** Entity type and name: a name in the run's namespace, a { raw } name as it is (an IP), or null (the default). */
type Entity = Array<[string, string | null | { raw: string }]>;
const entity = (c: Ctx, e: Entity) =>
  e.map(([entityType, name]) => ({ entityType, entityName: name === null ? null : typeof name === 'object' ? name.raw : c.t(name) }));
const LOCALHOST = { raw: '127.0.0.1' };
const op = (key: string, value: number | null) => ({ key, value: value ?? 0, remove: value === null });

function alter(v: number, entries: Array<{ entity: Entity; ops: ReturnType<typeof op>[] }>, o: { label: string; expect?: unknown; validateOnly?: boolean }): Step {
  return send('a', 49, v, (c: Ctx) => ({ entries: entries.map((e) => ({ entity: entity(c, e.entity), ops: e.ops })), validateOnly: o.validateOnly ?? false }), {
    label: o.label,
    expect: o.expect as never,
  });
}

type Component = { entityType: string; matchType: number; match?: string | null; raw?: boolean };
function describe(v: number, components: Component[], o: { label: string; strict?: boolean; expect?: unknown }): Step {
  return send(
    'a',
    48,
    v,
    (c: Ctx) => ({
      components: components.map((x) => ({ entityType: x.entityType, matchType: x.matchType, match: x.match === undefined || x.match === null || x.raw ? (x.match ?? null) : c.t(x.match) })),
      strict: o.strict ?? false,
    }),
    { label: o.label, expect: o.expect as never },
  );
}

const EXACT = 0;
const SPECIFIED = 2;
const ok = { errorCode: 0, errorMessage: null };
const invalid = { errorCode: E.INVALID_REQUEST };
const SETTLE_MS = 500;

export const quotaScenarios: Scenario[] = [
  tag(
    scenario('testClientQuotasAlterDescribe', {
      mirrors: 'ClientQuotaControlManager.alterClientQuotas / ClientQuotasImage.describe (ClientQuotasRequestTest.testAlterClientQuotasRequest, testDescribeClientQuotasMatchExact, testDescribeClientQuotasMatchPartial)',
      description:
        'AlterClientQuotas v1 sets quotas on a user, a user + client id, and an IP (validateOnly first: nothing changes); DescribeClientQuotas v0/v1 with exact, specified and strict filters lists them with their values; a removal of a key that was never set succeeds; a value changed; everything removed again, then nothing is described',
      steps: [
        alter(1, [{ entity: [['user', 'alice']], ops: [op('producer_byte_rate', 1024)] }], { label: 'validateOnly', validateOnly: true, expect: { entries: [ok] } }),
        wait(SETTLE_MS),
        describe(1, [{ entityType: 'user', matchType: EXACT, match: 'alice' }], { label: 'nothing after validateOnly', expect: { errorCode: 0, entries: [] } }),
        alter(
          1,
          [
            { entity: [['user', 'alice']], ops: [op('producer_byte_rate', 1024), op('consumer_byte_rate', 2048), op('request_percentage', 12.5)] },
            { entity: [['user', 'alice'], ['client-id', 'app']], ops: [op('controller_mutation_rate', 3.5)] },
            { entity: [['ip', null]], ops: [op('connection_creation_rate', 10)] },
            { entity: [['user', 'bob']], ops: [op('consumer_byte_rate', null)] },
          ],
          { label: 'set', expect: { entries: [ok, ok, ok, ok] } },
        ),
        wait(SETTLE_MS),
        describe(1, [{ entityType: 'user', matchType: EXACT, match: 'alice' }], { label: 'alice, not strict (also alice + app)', expect: { errorCode: 0 } }),
        describe(0, [{ entityType: 'user', matchType: EXACT, match: 'alice' }], { label: 'alice, strict', strict: true, expect: { errorCode: 0 } }),
        describe(1, [{ entityType: 'user', matchType: EXACT, match: 'alice' }, { entityType: 'client-id', matchType: SPECIFIED }], { label: 'alice with any client id', expect: { errorCode: 0 } }),
        describe(1, [{ entityType: 'user', matchType: EXACT, match: 'bob' }], { label: 'bob: a removal of nothing made nothing', expect: { errorCode: 0, entries: [] } }),
        alter(1, [{ entity: [['user', 'alice']], ops: [op('producer_byte_rate', 4096), op('consumer_byte_rate', null)] }], { label: 'change one, remove one', expect: { entries: [ok] } }),
        wait(SETTLE_MS),
        describe(1, [{ entityType: 'user', matchType: EXACT, match: 'alice' }], { label: 'alice after the change', strict: true, expect: { errorCode: 0 } }),
        alter(
          1,
          [
            { entity: [['user', 'alice']], ops: [op('producer_byte_rate', null), op('request_percentage', null)] },
            { entity: [['user', 'alice'], ['client-id', 'app']], ops: [op('controller_mutation_rate', null)] },
            { entity: [['ip', null]], ops: [op('connection_creation_rate', null)] },
          ],
          { label: 'remove all', expect: { entries: [ok, ok, ok] } },
        ),
        wait(SETTLE_MS),
        describe(1, [{ entityType: 'user', matchType: EXACT, match: 'alice' }], { label: 'alice gone', expect: { errorCode: 0, entries: [] } }),
        describe(0, [{ entityType: 'ip', matchType: 1 }], { label: 'default ip gone', expect: { errorCode: 0, entries: [] } }),
      ],
    }),
  ),
  tag(
    scenario('testClientQuotasAlterErrors', {
      mirrors: 'ClientQuotaControlManager.validateEntity / configKeysForEntityType / validateQuotaKeyValue / alterClientQuotas (duplicates) (ClientQuotasRequestTest.testAlterClientQuotasBadUser/BadClientId/BadEntityType/EmptyEntity/BadConfigKey/BadConfigValue)',
      description:
        'AlterClientQuotas v0: an empty entity, an unknown entity type, an empty user name, an IP with a user, an unknown key, a key of another entity type, a value of 0, a fractional byte rate, an INT too large, a duplicate key, the same entity twice (both answered "Ignoring duplicate entity", the first still applied): INVALID_REQUEST each, with Kafka\'s texts; then the applied one is removed',
      steps: [
        alter(
          0,
          [
            { entity: [], ops: [op('producer_byte_rate', 1)] },
            { entity: [['group', 'g']], ops: [op('producer_byte_rate', 1)] },
            { entity: [['ip', LOCALHOST], ['user', 'u1']], ops: [op('connection_creation_rate', 1)] },
            { entity: [['user', 'u2']], ops: [op('no_such_quota', 1)] },
            { entity: [['user', 'u3']], ops: [op('connection_creation_rate', 1)] },
            { entity: [['user', 'u4']], ops: [op('producer_byte_rate', 0)] },
            { entity: [['user', 'u5']], ops: [op('consumer_byte_rate', 10.5)] },
            { entity: [['ip', LOCALHOST]], ops: [op('connection_creation_rate', 3e9)] },
            { entity: [['user', 'u6']], ops: [op('producer_byte_rate', 1), op('producer_byte_rate', 2)] },
            { entity: [['client-id', 'c7']], ops: [op('request_percentage', 10)] },
            { entity: [['client-id', 'c7']], ops: [op('request_percentage', 20)] },
          ],
          {
            label: 'bad entries',
            expect: { entries: [invalid, invalid, invalid, invalid, invalid, invalid, invalid, invalid, invalid, invalid] },
          },
        ),
        send('a', 49, 1, { entries: [{ entity: [{ entityType: 'user', entityName: '' }], ops: [op('producer_byte_rate', 1)] }], validateOnly: false }, { label: 'empty user name', expect: { entries: [invalid] } }),
        wait(SETTLE_MS),
        describe(1, [{ entityType: 'client-id', matchType: EXACT, match: 'c7' }], { label: 'c7: the first of the duplicates was applied', strict: true, expect: { errorCode: 0 } }),
        alter(1, [{ entity: [['client-id', 'c7']], ops: [op('request_percentage', null)] }], { label: 'clean up', expect: { entries: [ok] } }),
        wait(SETTLE_MS),
      ],
    }),
  ),
  tag(
    scenario('testClientQuotasDescribeFilterErrors', {
      mirrors: 'ClientQuotasImage.describe filter checks -> DescribeClientQuotasRequest.getErrorResponse (ClientQuotasRequestTest.testDescribeClientQuotasInvalidFilterCombination, testDescribeClientQuotasBadEntityType)',
      description:
        'DescribeClientQuotas v1 filters Kafka refuses, each answered with one error for the request and no entries: an empty entity type, a type twice, an unsupported type (UNSUPPORTED_VERSION), EXACT without a match, DEFAULT and SPECIFIED with one, an unknown match type, IP with user',
      steps: [
        describe(1, [{ entityType: '', matchType: SPECIFIED }], { label: 'empty type', expect: { errorCode: E.INVALID_REQUEST, entries: null } }),
        describe(1, [{ entityType: 'user', matchType: SPECIFIED }, { entityType: 'user', matchType: 1 }], { label: 'user twice', expect: { errorCode: E.INVALID_REQUEST, entries: null } }),
        describe(1, [{ entityType: 'group', matchType: SPECIFIED }], { label: 'unsupported type', expect: { errorCode: E.UNSUPPORTED_VERSION, entries: null } }),
        describe(1, [{ entityType: 'user', matchType: EXACT, match: null }], { label: 'exact without match', expect: { errorCode: E.INVALID_REQUEST, entries: null } }),
        describe(1, [{ entityType: 'user', matchType: 1, match: 'x' }], { label: 'default with match', expect: { errorCode: E.INVALID_REQUEST, entries: null } }),
        describe(1, [{ entityType: 'user', matchType: SPECIFIED, match: 'x' }], { label: 'specified with match', expect: { errorCode: E.INVALID_REQUEST, entries: null } }),
        describe(1, [{ entityType: 'user', matchType: 7 }], { label: 'unknown match type', expect: { errorCode: E.INVALID_REQUEST, entries: null } }),
        describe(0, [{ entityType: 'ip', matchType: SPECIFIED }, { entityType: 'user', matchType: SPECIFIED }], { label: 'ip with user', expect: { errorCode: E.INVALID_REQUEST, entries: null } }),
      ],
    }),
  ),
];
