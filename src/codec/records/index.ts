// Kafka record formats: v2 record batches (header access and in-place patching for the broker,
// full decode/encode for tools and tests) and legacy magic 0/1 message sets.
export * from './constants.js';
export { crc32, crc32c } from './crc.js';
export * from './header.js';
export * from './iterate.js';
export { compress, decompress, initCompression, type DecompressOptions } from './compression.js';
export { isXerialFramed } from './snappy.js';
export * from './record.js';
export * from './batch.js';
export * from './control.js';
export * from './legacy.js';
export * from './records.js';
