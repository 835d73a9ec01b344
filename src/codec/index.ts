// kmock's codec: wire primitives, the generated message codecs, frames and the JSON form.
export * from './primitives/index.js';
export * from './generated/index.js';
export * from './frame.js';
export * from './json.js';
