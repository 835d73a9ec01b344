// Wire primitives shared by the generated codecs, the frame layer and the record-batch code.
export * from './errors.js';
export * from './reader.js';
export * from './writer.js';
export * from './tagged.js';
export * from './schema.js';
export * from './trace.js';
