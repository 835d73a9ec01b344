// The draft policies, in the order the hook chain runs them (it decides who answers first). The one
// list: POLICY_NAMES, PolicyConfig/PolicyUpdate (types.ts), DEFAULT_POLICIES, validation and the
// text form (config.ts), the event union (events.ts), the policies of a coordinator (index.ts) and
// `kmock start --help` are derived from it. A new policy: its file, exporting a definePolicy(...)
// (define.ts), and one line here.

import { DRAFT_ERRORS } from './draft-errors.js';
import { EXPANSION_TIMEOUT } from './expansion-timeout.js';
import { JOIN_REASONS } from './join-reasons.js';
import { MEMBERSHIP_MODES } from './membership-modes.js';
import { REGISTRATION_TIMEOUT } from './registration-timeout.js';
import type { PolicyDefinition } from './define.js';

export const POLICIES = [
  DRAFT_ERRORS,
  REGISTRATION_TIMEOUT,
  EXPANSION_TIMEOUT,
  MEMBERSHIP_MODES,
  JOIN_REASONS,
] as const satisfies readonly PolicyDefinition[];
