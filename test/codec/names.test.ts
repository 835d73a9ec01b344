// The codec's protocol constants (src/codec/errors.ts, src/codec/constants.ts) and the generator's
// names for nested structs (a namespace per message; src/codec/generator/README.md).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as codec from '../../src/codec/index.js';
import { generate } from '../../src/codec/generator/main.js';

const {
  AclOperation,
  AUTHORIZED_OPERATIONS_OMITTED,
  authorizedOperations,
  ErrorCode,
  errorByCode,
  errorName,
  isRetriable,
  KAFKA_ERRORS,
  Reader,
  ZERO_UUID,
} = codec;

describe('error codes', () => {
  it("hold Kafka 3.9's table: -1..127 without 99, each code once", () => {
    const codes = KAFKA_ERRORS.map((e) => e.code);
    expect(codes.length).toBe(128);
    expect(new Set(codes).size).toBe(128);
    expect(codes[0]).toBe(-1);
    expect(codes.at(-1)).toBe(127);
    expect(codes).not.toContain(99);
    for (const e of KAFKA_ERRORS) expect(ErrorCode[e.name]).toBe(e.code);
  });

  it('name any code, and say so for a code Kafka does not define', () => {
    expect(errorName(79)).toBe('MEMBER_ID_REQUIRED');
    expect(errorName(ErrorCode.VOTER_NOT_FOUND)).toBe('VOTER_NOT_FOUND');
    expect(errorName(99)).toBe('UNKNOWN_CODE_99');
    expect(errorByCode(16)).toEqual({ code: 16, name: 'NOT_COORDINATOR', retriable: true });
    expect(errorByCode(1000)).toBeUndefined();
  });

  it('are retriable where the exception extends RetriableException', () => {
    for (const c of [ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.REQUEST_TIMED_OUT, ErrorCode.CORRUPT_MESSAGE]) {
      expect(isRetriable(c), errorName(c)).toBe(true);
    }
    for (const c of [ErrorCode.NONE, ErrorCode.UNKNOWN_SERVER_ERROR, ErrorCode.REBALANCE_IN_PROGRESS, ErrorCode.ILLEGAL_GENERATION, ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.INVALID_RECORD]) {
      expect(isRetriable(c), errorName(c)).toBe(false);
    }
    expect(KAFKA_ERRORS.filter((e) => e.retriable).length).toBe(31);
  });
});

describe('protocol constants', () => {
  it('ZERO_UUID is 16 zero bytes as the codec reads a uuid', () => {
    expect(new Reader(Buffer.alloc(16)).uuid()).toBe(ZERO_UUID);
  });

  it('AUTHORIZED_OPERATIONS_OMITTED is Integer.MIN_VALUE', () => {
    expect(AUTHORIZED_OPERATIONS_OMITTED).toBe(-(2 ** 31));
  });

  it("authorizedOperations sets one bit per operation (Kafka's no-authorizer cluster and topic sets)", () => {
    const { CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE, READ, WRITE, DELETE } = AclOperation;
    expect(authorizedOperations([CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE])).toBe(8096);
    expect(authorizedOperations([READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS])).toBe(3576);
  });
});

describe('generated nested names', () => {
  it('nested structs live in the message namespace, named without the message or API prefix', () => {
    const resource: codec.DescribeConfigsRequest.Resource = codec.DescribeConfigsRequest.createResource({ resourceType: 2, resourceName: 't' });
    const req = codec.createDescribeConfigsRequest({ resources: [resource] });
    expect(codec.decodeDescribeConfigsRequest(codec.encodeDescribeConfigsRequest(req, 4), 4).resources[0].resourceName).toBe('t');
    expect(codec.DescribeConfigsRequest.ResourceSchema.name).toBe('DescribeConfigsRequest.Resource');
    expect(codec.DescribeConfigsRequestSchema.fields[0].struct).toBe(codec.DescribeConfigsRequest.ResourceSchema);
    expect(codec.JoinGroupRequest.createProtocol().name).toBe('');
    expect(codec.CreateTopicsRequest.createCreatableTopic({ name: 't' }).name).toBe('t');
  });

  const temps: string[] = [];
  afterAll(() => {
    for (const d of temps) rmSync(d, { recursive: true, force: true });
  });
  function run(spec: Record<string, unknown>): string {
    const dir = mkdtempSync(join(tmpdir(), 'kmock-names-'));
    temps.push(dir);
    mkdirSync(join(dir, 'schemas'));
    writeFileSync(join(dir, 'schemas', `${spec.name as string}.json`), JSON.stringify(spec));
    const response = { ...spec, type: 'response', name: 'TinyThingResponse', fields: [] };
    writeFileSync(join(dir, 'schemas', 'TinyThingResponse.json'), JSON.stringify(response));
    generate(join(dir, 'schemas'), join(dir, 'out'));
    return readFileSync(join(dir, 'out', `${spec.name as string}.ts`), 'utf8');
  }
  const spec = (structs: string[]) => ({
    apiKey: 9999,
    type: 'request',
    name: 'TinyThingRequest',
    validVersions: '0',
    flexibleVersions: 'none',
    fields: structs.map((s, i) => ({ name: `F${i}`, type: `[]${s}`, versions: '0+', fields: [{ name: 'X', type: 'int32', versions: '0+' }] })),
  });

  it('strip a leading message or API name only where a new word starts', () => {
    const out = run(spec(['TinyThingRequestA', 'TinyThingB', 'TinyThingsC', 'Plain']));
    expect(out).toContain('export namespace TinyThingRequest {');
    for (const n of ['A', 'B', 'TinyThingsC', 'Plain']) {
      expect(out).toContain(`export interface ${n} {`);
      expect(out).toContain(`export function create${n}(`);
      expect(out).toContain(`export const ${n}Schema`);
    }
    expect(out).toContain('/** TinyThingB in the spec. */');
  });

  it('refuse two structs of one message that would share a name', () => {
    expect(() => run(spec(['TinyThingRequestTopic', 'TinyThingTopic']))).toThrow(/would be named TinyThingRequest.Topic like TinyThingRequestTopic/);
  });

  it('refuse a nested name that would hide a type the generated code uses', () => {
    expect(() => run(spec(['TinyThingTaggedField']))).toThrow(/would be named TaggedField/);
  });
});
