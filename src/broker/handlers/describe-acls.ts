// DescribeAcls (29), v0-3 (AclApis.handleDescribeAcls). A filter with an UNKNOWN (0) code closes
// the connection, as Kafka's request parse does (see acls.ts). Then DESCRIBE on the cluster, else
// CLUSTER_AUTHORIZATION_FAILED for the request. Without an authorizer: SECURITY_DISABLED and "No
// Authorizer is configured on the broker", no resources. With one: the matching ACLs grouped by
// resource pattern (DescribeAclsResponse.aclsResources; Kafka groups them in a HashMap, so its
// order means nothing; kmock lists them in creation order).
import { AclOperation, createDescribeAclsResponse, ErrorCode, type DescribeAclsResponse } from '../../codec/index.js';
import { authorizedCluster } from '../security/authorizer/index.js';
import { CLUSTER_AUTHORIZATION_MESSAGE, DESCRIBE_ACLS_DISABLED_MESSAGE, closeUnparsable, hasUnknownElement, toFilter } from './acls.js';
import { defineHandler } from './types.js';

export const describeAclsHandler = defineHandler({
  apiKey: 29,
  minVersion: 0,
  maxVersion: 3,
  handle(ctx, req) {
    const filter = toFilter(req);
    if (hasUnknownElement(filter)) return closeUnparsable(ctx, 'DescribeAclsRequest contains UNKNOWN elements');
    const answer = (errorCode: number, errorMessage: string | null, resources: DescribeAclsResponse.Resource[] = []) =>
      createDescribeAclsResponse({ throttleTimeMs: 0, errorCode, errorMessage, resources });
    if (!authorizedCluster(ctx, AclOperation.DESCRIBE)) return answer(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_MESSAGE);
    const authorizer = ctx.services.authorizer;
    if (authorizer === undefined) return answer(ErrorCode.SECURITY_DISABLED, DESCRIBE_ACLS_DISABLED_MESSAGE);
    const byPattern = new Map<string, DescribeAclsResponse.Resource>();
    for (const acl of authorizer.acls(filter)) {
      const key = JSON.stringify([acl.resourceType, acl.resourceName, acl.patternType]);
      let r = byPattern.get(key);
      if (r === undefined) byPattern.set(key, (r = { resourceType: acl.resourceType, resourceName: acl.resourceName, patternType: acl.patternType, acls: [] }));
      r.acls.push({ principal: acl.principal, host: acl.host, operation: acl.operation, permissionType: acl.permissionType });
    }
    return answer(ErrorCode.NONE, '', [...byPattern.values()]);
  },
});
