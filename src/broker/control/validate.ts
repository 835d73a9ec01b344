// Input checks shared by the control plane's doors. Every check throws a 400 ControlError naming
// the offending field, so a bad request never reaches the coordinator.
import { APIS, ErrorCode } from '../../codec/index.js';
import { badRequest } from './errors.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON object body, or {} for an absent body. */
export function objectBody(body: unknown, what = 'body'): Record<string, unknown> {
  if (body === undefined) return {};
  if (!isObject(body)) throw badRequest(`${what} must be a JSON object`);
  return body;
}

/** Rejects fields other than `allowed` (typos must not pass silently). */
export function onlyFields(o: Record<string, unknown>, allowed: readonly string[], what = 'body'): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) throw badRequest(`unknown field "${k}" in ${what} (allowed: ${allowed.join(', ') || 'none'})`);
  }
}

export function groupIdArg(v: unknown): string {
  if (typeof v !== 'string' || v === '') throw badRequest('group id must be a non-empty string');
  if (v.length > 32767) throw badRequest('group id too long');
  return v;
}

export function optionalString(v: unknown, what: string, maxLength = 32767): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw badRequest(`${what} must be a string`);
  if (v.length > maxLength) throw badRequest(`${what} longer than ${maxLength} characters`);
  return v;
}

export function integer(v: unknown, what: string, min: number, max: number): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw badRequest(`${what} must be an integer, got ${JSON.stringify(v)}`);
  if (n < min || n > max) throw badRequest(`${what} must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function optionalInteger(v: unknown, what: string, min: number, max: number): number | undefined {
  return v === undefined || v === null ? undefined : integer(v, what, min, max);
}

export function stringList(v: unknown, what: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw badRequest(`${what} must be an array of strings`);
  for (const s of v) if (typeof s !== 'string' || s === '') throw badRequest(`${what} must contain non-empty strings`);
  return [...new Set(v as string[])];
}

const API_BY_NAME = new Map<string, number>(Object.values(APIS).map((a) => [a.name.toLowerCase(), a.key]));

/** An API key given as a number ("0", 0) or by Kafka's name ("Produce", case-insensitive). */
export function apiKeyArg(v: unknown, served: ReadonlySet<number>): number {
  let key: number | undefined;
  if (typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v))) key = Number(v);
  else if (typeof v === 'string') key = API_BY_NAME.get(v.toLowerCase());
  if (key === undefined || !Number.isInteger(key)) throw badRequest(`apiKey must be an API key number or name, got ${JSON.stringify(v)}`);
  if (!served.has(key)) throw badRequest(`API key ${key} is not served by kmock`);
  return key;
}

const ERROR_BY_NAME = new Map<string, number>(Object.entries(ErrorCode));
const KNOWN_CODES = new Set<number>(Object.values(ErrorCode));

/** A Kafka error code given as a number ("6", 6, -1) or by name ("NOT_LEADER_OR_FOLLOWER"). */
export function errorCodeArg(v: unknown): number {
  let code: number | undefined;
  if (typeof v === 'number' || (typeof v === 'string' && /^-?\d+$/.test(v))) code = Number(v);
  else if (typeof v === 'string') code = ERROR_BY_NAME.get(v.toUpperCase());
  if (code === undefined || !KNOWN_CODES.has(code)) throw badRequest(`unknown Kafka error ${JSON.stringify(v)}`);
  if (code === ErrorCode.NONE) throw badRequest('error code 0 (NONE) is not an error');
  return code;
}

/** Longest timeout accepted (Kafka's ms settings are int32). */
export const MAX_TIMEOUT_MS = 2_147_483_647;
