// kmock's codec: wire primitives, the generated message codecs, frames and the JSON form, and the
// protocol's constants (error codes, ACL and config-resource codes, ZERO_UUID).
export * from './primitives/index.js';
export * from './generated/index.js';
export * from './frame.js';
export * from './json.js';
export * from './errors.js';
export * from './constants.js';
