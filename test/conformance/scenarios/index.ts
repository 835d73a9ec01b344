// Every hand-written scenario, in the order the suite runs them.
import type { Scenario } from '../runner.js';
import { aclScenarios } from './acls.js';
import { adminScenarios } from './admin.js';
import { apiScenarios } from './api.js';
import { authorizerScenarios } from './authorizer.js';
import { configsAlterScenarios } from './configs-alter.js';
import { coverageScenarios } from './coverage.js';
import { dataScenarios } from './data.js';
import { groupAdminScenarios } from './group-admin.js';
import { groupJoinScenarios } from './group-join.js';
import { groupLeaveScenarios } from './group-leave.js';
import { groupOffsetScenarios } from './group-offsets.js';
import { groupStaticScenarios } from './group-static.js';
import { groupSyncHeartbeatScenarios } from './group-sync-heartbeat.js';
import { groupTimerScenarios } from './group-timers.js';
import { miscScenarios } from './misc.js';
import { robustnessScenarios } from './robustness.js';
import { securityScenarios } from './security.js';
import { quotaScenarios } from './quotas.js';
import { logDirScenarios } from './log-dirs.js';
import { delegationTokenScenarios } from './delegation-tokens.js';
import { storageScenarios } from './storage.js';
import { transactionScenarios } from './transactions.js';
import { transactionDataScenarios } from './transactions-data.js';
import { transactionOffsetScenarios } from './transactions-offsets.js';

export const ALL_SCENARIOS: Scenario[] = [
  ...apiScenarios,
  ...adminScenarios,
  ...aclScenarios,
  ...dataScenarios,
  ...groupJoinScenarios,
  ...groupStaticScenarios,
  ...groupSyncHeartbeatScenarios,
  ...groupLeaveScenarios,
  ...groupOffsetScenarios,
  ...groupTimerScenarios,
  ...groupAdminScenarios,
  ...miscScenarios,
  ...coverageScenarios,
  ...robustnessScenarios,
  ...transactionScenarios,
  ...transactionDataScenarios,
  ...transactionOffsetScenarios,
  ...configsAlterScenarios,
  ...storageScenarios,
  ...securityScenarios,
  ...quotaScenarios,
  ...logDirScenarios,
  ...delegationTokenScenarios,
  ...authorizerScenarios,
];

const names = new Set<string>();
for (const s of ALL_SCENARIOS) {
  if (names.has(s.name)) throw new Error(`duplicate scenario name ${s.name}`);
  names.add(s.name);
}
