// The native libraries (compression, CRC-32C), loaded on first use: most brokers and codec users
// never see a snappy, lz4 or zstd batch, and loading them up front costs start-up time and memory.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

type Snappy = typeof import('snappy');
type Lz4 = typeof import('lz4-napi');
type Zstd = typeof import('@bokuweb/zstd-wasm');
type Crc = typeof import('@node-rs/crc32');

let snappy: Snappy | undefined;
let lz4: Lz4 | undefined;
let zstd: Zstd | undefined;
let crc: Crc | undefined;

export function snappyLib(): Snappy {
  return (snappy ??= require('snappy') as Snappy);
}

export function lz4Lib(): Lz4 {
  return (lz4 ??= require('lz4-napi') as Lz4);
}

export function zstdLib(): Zstd {
  return (zstd ??= require('@bokuweb/zstd-wasm') as Zstd);
}

export function crcLib(): Crc {
  return (crc ??= require('@node-rs/crc32') as Crc);
}
