// Known reasons why a client-matrix step ends differently on kmock and on a real Kafka. As in
// ../causes.ts, only `accepted` entries are deliberate; a kmock bug stays listed until fixed.
import type { CauseKind } from '../causes.js';
import type { StepName } from './driver.js';

export interface ClientCause {
  id: string;
  kind: CauseKind | 'kafka-4x-change';
  /** Client app ids it applies to. */
  app: RegExp;
  step: StepName;
  /** Reference brokers it applies to ("kafka-3.9.1", "kafka-4.4.0"). */
  reference: RegExp;
  cause: string;
  accepted: boolean;
}

export const CLIENT_CAUSES: ClientCause[] = [];
