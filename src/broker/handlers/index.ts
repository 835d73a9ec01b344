// Every API kmock serves, with the versions it answers faithfully. ApiVersions advertises
// exactly this list, so a client never picks an API or version kmock would get wrong.
import { apiVersionsHandler } from './api-versions.js';
import { metadataHandler } from './metadata.js';
// -- admin handler imports --
// -- data path handler imports --
// -- group handler imports --
import type { ApiHandler } from './types.js';

export const HANDLERS: ApiHandler[] = [
  apiVersionsHandler,
  metadataHandler,
  // -- admin handlers --
  // -- data path handlers --
  // -- group handlers --
] as ApiHandler[];
