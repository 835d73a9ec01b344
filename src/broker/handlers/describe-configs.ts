// DescribeConfigs (32), v0-4: TOPIC (2) and BROKER (4) resources -- plus BROKER_LOGGER (8) and
// CLIENT_METRICS (16) -- as Kafka 3.9's ConfigHelper describes them on a broker:
//  - a topic: Topic.validate (INVALID_TOPIC_EXCEPTION), UNKNOWN_TOPIC_OR_PARTITION (no message)
//    when absent, else every topic config with its value, source, synonyms (v1+
//    includeSynonyms), type (v3+) and documentation (v3+ includeDocumentation);
//  - the broker: resource name "" (the cluster-wide dynamic defaults: only the configs set there)
//    or this node's id (its configs with the dynamic layers: config/describe.ts), else
//    INVALID_REQUEST ("Broker id must be an integer, ..." / "Unexpected broker id, ...");
//  - BROKER_LOGGER: this node's loggers and their levels (as IncrementalAlterConfigs left them);
//  - CLIENT_METRICS: a subscription's configs, as set (all of them: Kafka applies no key filter);
//  - any other resource type fails the whole request: every resource gets INVALID_REQUEST with
//    Kafka's default message (handleDescribeConfigsRequest throws before describing anything).
// v0 has IsDefault instead of ConfigSource, and Kafka 3.9 never sets it: it is always false.
import {
  AclOperation,
  ConfigResourceType,
  createDescribeConfigsResponse,
  type DescribeConfigsRequest,
  type DescribeConfigsResponse,
  ErrorCode,
} from '../../codec/index.js';
import type { BrokerServices } from '../services.js';
import { ConfigSource, describeBrokerConfigs, describeClusterDefaultConfigs, describeTopicConfigs, type DescribedConfig } from '../config/describe.js';
import { javaHashOrder } from '../config/java-hash.js';
import { parseJavaInt } from '../config/java-values.js';
import { DEFAULT_ERROR_MESSAGE, invalidTopicNameMessage } from '../log/topic-admin.js';
import { configAccess } from '../security/authorizer/index.js';
import { defineHandler } from './types.js';

const { TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS } = ConfigResourceType;
const KNOWN_TYPES = new Set<number>([TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS]);

export const describeConfigsHandler = defineHandler({
  apiKey: 32,
  minVersion: 0,
  maxVersion: 4,
  handle(ctx, req) {
    const resources = req.resources;
    if (resources.some((r) => !KNOWN_TYPES.has(r.resourceType))) {
      return createDescribeConfigsResponse({
        throttleTimeMs: 0,
        results: resources.map((r) =>
          result(r, ErrorCode.INVALID_REQUEST, DEFAULT_ERROR_MESSAGE.INVALID_REQUEST, []),
        ),
      });
    }
    // ConfigHelper.handleDescribeConfigsRequest: DESCRIBE_CONFIGS on the topic, or on the cluster
    // for the other types; the resources the principal may not describe come last, with the
    // authorization error and its default text.
    const may = configAccess(ctx, AclOperation.DESCRIBE_CONFIGS);
    const allowed = resources.map((r) => may(r.resourceType === TOPIC ? r.resourceName : null));
    const denied = resources
      .filter((_, i) => !allowed[i])
      .map((r) =>
        r.resourceType === TOPIC
          ? result(r, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Topic authorization failed.', [])
          : result(r, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.', []),
      );
    return createDescribeConfigsResponse({
      throttleTimeMs: 0,
      results: [...resources.filter((_, i) => allowed[i]).map((r) => describe(ctx.services, r, req.includeSynonyms, req.includeDocumentation)), ...denied],
    });
  },
});

function describe(
  broker: BrokerServices,
  r: DescribeConfigsRequest.Resource,
  includeSynonyms: boolean,
  includeDocumentation: boolean,
): DescribeConfigsResponse.Result {
  const nodeId = broker.config.nodeId;
  const invalid = (message: string) => result(r, ErrorCode.INVALID_REQUEST, message, []);
  switch (r.resourceType) {
    case TOPIC: {
      const bad = invalidTopicNameMessage(r.resourceName);
      if (bad !== null) return result(r, ErrorCode.INVALID_TOPIC_EXCEPTION, bad, []);
      const topic = broker.topics.get(r.resourceName);
      if (!topic) return result(r, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null, []);
      return result(r, 0, null, describeTopicConfigs(broker, topic, r.configurationKeys, includeSynonyms, includeDocumentation));
    }
    case BROKER: {
      // "": the cluster-wide dynamic defaults.
      if (r.resourceName === '') {
        return result(r, 0, null, describeClusterDefaultConfigs(broker, r.configurationKeys, includeSynonyms, includeDocumentation));
      }
      const id = parseJavaInt(r.resourceName);
      if (id === undefined) return invalid(`Broker id must be an integer, but it is: ${r.resourceName}`);
      if (id !== nodeId) {
        return invalid(`Unexpected broker id, expected ${nodeId} or empty string, but received ${r.resourceName}`);
      }
      return result(r, 0, null, describeBrokerConfigs(broker, r.configurationKeys, includeSynonyms, includeDocumentation));
    }
    case BROKER_LOGGER: {
      if (r.resourceName === '') return invalid('Broker id must not be empty');
      const id = parseJavaInt(r.resourceName);
      if (id === undefined) return invalid(`Broker id must be an integer, but it is: ${r.resourceName}`);
      if (id !== nodeId) return invalid(`Unexpected broker id, expected ${nodeId} but received ${r.resourceName}`);
      const keys = r.configurationKeys;
      const loggers = broker.dynamicConfigs.loggers.all().filter(([name]) => keys === null || keys.length === 0 || keys.includes(name));
      return result(
        r,
        0,
        null,
        loggers.map(([name, level]) => ({
          name,
          value: level,
          readOnly: false,
          configSource: ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG,
          isSensitive: false,
          synonyms: [],
          configType: 0,
          // Not set by ConfigHelper: the field's default.
          documentation: '',
        })),
      );
    }
    default: {
      // CLIENT_METRICS: the subscription's configs as AlterConfigs set them, in the order of
      // the Properties Kafka reads them from, whatever keys were asked for.
      if (r.resourceName === '') return invalid('Client metrics subscription name must not be empty');
      const configs = broker.dynamicConfigs.clientMetrics.get(r.resourceName) ?? new Map<string, string>();
      return result(
        r,
        0,
        null,
        javaHashOrder(configs.keys()).map((name) => ({
          name,
          value: configs.get(name)!,
          readOnly: false,
          configSource: ConfigSource.CLIENT_METRICS_CONFIG,
          isSensitive: false,
          synonyms: [],
          configType: 0,
          // Not set by ConfigHelper: the field's default.
          documentation: '',
        })),
      );
    }
  }
}

function result(
  r: DescribeConfigsRequest.Resource,
  errorCode: number,
  errorMessage: string | null,
  configs: DescribedConfig[],
): DescribeConfigsResponse.Result {
  return {
    errorCode,
    // Kafka 3.9 sends "" rather than null when there is no message (conformance run vs 3.9.1).
    errorMessage: errorMessage ?? '',
    resourceType: r.resourceType,
    resourceName: r.resourceName,
    configs: configs.map((c) => ({
      name: c.name,
      value: c.value,
      readOnly: c.readOnly,
      isDefault: false,
      configSource: c.configSource,
      isSensitive: c.isSensitive,
      synonyms: c.synonyms,
      configType: c.configType,
      documentation: c.documentation,
    })),
  };
}
