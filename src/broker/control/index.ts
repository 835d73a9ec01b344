// The control plane: one model (ControlPlane), served as methods on `startKmock()`'s result
// (`kmock.control`), as an HTTP JSON API (http.ts, `--admin-port`) and by `kmock admin`.
export { ControlPlane, decodeAssignment, decodeSubscription } from './model.js';
export type {
  AssignmentView,
  CommittedOffsetView,
  ConnectionView,
  EventOptions,
  GroupSummary,
  GroupView,
  MemberView,
  PoliciesView,
  StrictClientsView,
  SubscriptionView,
  TopicView,
} from './model.js';
export { TransactionsControl, type TransactionView, type TxnEventOptions } from './transactions.js';
export { ControlError } from './errors.js';
export { FaultInjector, type FaultsView } from './faults.js';
export { buildErrorResponse } from './error-response.js';
export { startAdminServer, adminRoutes, MAX_BODY_BYTES, type AdminServer } from './http.js';
