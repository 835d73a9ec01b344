// DescribeCluster (60), v0-1: this broker, the cluster id and the controller, as
// KafkaApis.handleDescribeCluster / AuthHelper.computeDescribeClusterResponse give them on a
// broker listener. v1's EndpointType must be 1 (brokers): 2 (controllers) is
// MISMATCHED_ENDPOINT_TYPE, anything else UNSUPPORTED_ENDPOINT_TYPE. In KRaft the controller id
// shown to clients is a live broker's id -- here this broker's. KIP-430's cluster bit field is the
// principal's cluster operations, or 0 when it may not DESCRIBE the cluster (every operation
// without an authorizer).
import { AclOperation, createDescribeClusterResponse, ErrorCode, ResourceType, AUTHORIZED_OPERATIONS_OMITTED } from '../../codec/index.js';
import { authorizedCluster, authorizedOperations, CLUSTER_NAME } from '../security/authorizer/index.js';
import { defineHandler } from './types.js';

const ENDPOINT_BROKER = 1;
const ENDPOINT_CONTROLLER = 2;


export const describeClusterHandler = defineHandler({
  apiKey: 60,
  minVersion: 0,
  maxVersion: 1,
  handle(ctx, req) {
    const b = ctx.services;
    const v0 = ctx.apiVersion === 0;
    if (req.endpointType !== ENDPOINT_BROKER) {
      if (req.endpointType === ENDPOINT_CONTROLLER) {
        return createDescribeClusterResponse({
          errorCode: v0 ? ErrorCode.INVALID_REQUEST : ErrorCode.MISMATCHED_ENDPOINT_TYPE,
          errorMessage: 'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER',
        });
      }
      return createDescribeClusterResponse({
        errorCode: v0 ? ErrorCode.INVALID_REQUEST : ErrorCode.UNSUPPORTED_ENDPOINT_TYPE,
        errorMessage: `Unsupported endpoint type ${req.endpointType}`,
      });
    }
    return createDescribeClusterResponse({
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      endpointType: ENDPOINT_BROKER,
      clusterId: b.clusterId,
      controllerId: b.config.nodeId,
      brokers: [{ brokerId: b.config.nodeId, host: ctx.listener.advertised.host, port: ctx.listener.advertised.port, rack: b.config.rack }],
      clusterAuthorizedOperations: !req.includeClusterAuthorizedOperations
        ? AUTHORIZED_OPERATIONS_OMITTED
        : authorizedCluster(ctx, AclOperation.DESCRIBE)
          ? authorizedOperations(ctx, ResourceType.CLUSTER, CLUSTER_NAME)
          : 0,
    });
  },
});
