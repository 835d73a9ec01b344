// Every API kmock serves, with the versions it answers faithfully. ApiVersions advertises
// exactly this list, so a client never picks an API or version kmock would get wrong.
import { apiVersionsHandler } from './api-versions.js';
import { metadataHandler } from './metadata.js';
// -- admin handler imports --
import { createAclsHandler } from './create-acls.js';
import { createPartitionsHandler } from './create-partitions.js';
import { createTopicsHandler } from './create-topics.js';
import { deleteAclsHandler } from './delete-acls.js';
import { deleteTopicsHandler } from './delete-topics.js';
import { describeAclsHandler } from './describe-acls.js';
import { describeClusterHandler } from './describe-cluster.js';
import { describeUserScramCredentialsHandler } from './describe-user-scram-credentials.js';
import { alterUserScramCredentialsHandler } from './alter-user-scram-credentials.js';
import { alterClientQuotasHandler } from './alter-client-quotas.js';
import { describeClientQuotasHandler } from './describe-client-quotas.js';
import { describeLogDirsHandler } from './describe-log-dirs.js';
import { createDelegationTokenHandler } from './create-delegation-token.js';
import { renewDelegationTokenHandler } from './renew-delegation-token.js';
import { expireDelegationTokenHandler } from './expire-delegation-token.js';
import { describeDelegationTokenHandler } from './describe-delegation-token.js';
import { alterReplicaLogDirsHandler } from './alter-replica-log-dirs.js';
import { describeConfigsHandler } from './describe-configs.js';
import { alterConfigsHandler } from './alter-configs.js';
import { incrementalAlterConfigsHandler } from './incremental-alter-configs.js';
import { saslAuthenticateHandler } from './sasl-authenticate.js';
import { saslHandshakeHandler } from './sasl-handshake.js';
// -- data path handler imports --
import { produceHandler } from './produce.js';
import { fetchHandler } from './fetch.js';
import { listOffsetsHandler } from './list-offsets.js';
import { deleteRecordsHandler } from './delete-records.js';
import { initProducerIdHandler } from './init-producer-id.js';
// -- transaction handler imports --
import { addPartitionsToTxnHandler } from './add-partitions-to-txn.js';
import { addOffsetsToTxnHandler } from './add-offsets-to-txn.js';
import { endTxnHandler } from './end-txn.js';
import { writeTxnMarkersHandler } from './write-txn-markers.js';
import { describeTransactionsHandler } from './describe-transactions.js';
import { listTransactionsHandler } from './list-transactions.js';
import { txnOffsetCommitHandler } from './txn-offset-commit.js';
import { describeProducersHandler } from './describe-producers.js';
// -- group handler imports --
import { describeGroupsHandler } from './describe-groups.js';
import { deleteGroupsHandler } from './delete-groups.js';
import { findCoordinatorHandler } from './find-coordinator.js';
import { heartbeatHandler } from './heartbeat.js';
import { joinGroupHandler } from './join-group.js';
import { leaveGroupHandler } from './leave-group.js';
import { listGroupsHandler } from './list-groups.js';
import { offsetCommitHandler } from './offset-commit.js';
import { offsetDeleteHandler } from './offset-delete.js';
import { offsetFetchHandler } from './offset-fetch.js';
import { syncGroupHandler } from './sync-group.js';
import type { ApiHandler } from './types.js';

export const HANDLERS: ApiHandler[] = [
  apiVersionsHandler,
  metadataHandler,
  // -- admin handlers --
  saslHandshakeHandler,
  createTopicsHandler,
  deleteTopicsHandler,
  describeAclsHandler,
  createAclsHandler,
  deleteAclsHandler,
  describeConfigsHandler,
  alterConfigsHandler,
  incrementalAlterConfigsHandler,
  saslAuthenticateHandler,
  createPartitionsHandler,
  describeClusterHandler,
  describeUserScramCredentialsHandler,
  alterUserScramCredentialsHandler,
  describeClientQuotasHandler,
  alterClientQuotasHandler,
  describeLogDirsHandler,
  alterReplicaLogDirsHandler,
  createDelegationTokenHandler,
  renewDelegationTokenHandler,
  expireDelegationTokenHandler,
  describeDelegationTokenHandler,
  // -- data path handlers --
  produceHandler,
  fetchHandler,
  listOffsetsHandler,
  deleteRecordsHandler,
  initProducerIdHandler,
  // -- transaction handlers --
  addPartitionsToTxnHandler,
  addOffsetsToTxnHandler,
  endTxnHandler,
  writeTxnMarkersHandler,
  describeTransactionsHandler,
  listTransactionsHandler,
  txnOffsetCommitHandler,
  describeProducersHandler,
  // -- group handlers --
  findCoordinatorHandler,
  joinGroupHandler,
  syncGroupHandler,
  heartbeatHandler,
  leaveGroupHandler,
  offsetCommitHandler,
  offsetFetchHandler,
  describeGroupsHandler,
  listGroupsHandler,
  deleteGroupsHandler,
  offsetDeleteHandler,
] as ApiHandler[];
