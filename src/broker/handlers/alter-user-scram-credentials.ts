// AlterUserScramCredentials (51), v0, as Kafka 3.9's controller answers it
// (ControllerApis.handleAlterUserScramCredentials -> ScramControlManager.alterCredentials):
// deletions then upsertions validated per user, a user named twice is DUPLICATE_RESOURCE, and
// the salted password becomes stored/server keys (finishUpsertion).
import { AclOperation, createAlterUserScramCredentialsResponse, ErrorCode, ResourceType } from '../../codec/index.js';
import { authorized } from '../security/authorizer/index.js';
import { fromSaltedPassword, SCRAM_MAX_ITERATIONS, SCRAM_MIN_ITERATIONS, type ScramMechanism } from '../security/sasl/scram-credentials.js';
import { defineHandler } from './types.js';

const BY_TYPE = new Map<number, ScramMechanism>([[1, 'SCRAM-SHA-256'], [2, 'SCRAM-SHA-512']]);
const TWICE = 'A user credential cannot be altered twice in the same request';
type Err = { errorCode: number; errorMessage: string };

function validateName(name: string, mech: number): Err | undefined {
  if (name === '') return { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Username must not be empty' };
  if (!BY_TYPE.has(mech)) return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, errorMessage: 'Unknown SCRAM mechanism' };
  return undefined;
}

export const alterUserScramCredentialsHandler = defineHandler({
  apiKey: 51,
  minVersion: 0,
  maxVersion: 0,
  handle(ctx, req) {
    const store = ctx.services.scramCredentials;
    if (!authorized(ctx, AclOperation.ALTER, ResourceType.CLUSTER, 'kafka-cluster')) {
      // AlterUserScramCredentialsRequest.getErrorResponse: each user once, sorted. Kafka's message
      // is "Request <the request's toString> is not authorized."; kmock says the error's default.
      const users = [...new Set([...req.deletions.map((d) => d.name), ...req.upsertions.map((u) => u.name)])].sort();
      return createAlterUserScramCredentialsResponse({ throttleTimeMs: 0, results: users.map((user) => ({ user, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.' })) });
    }
    const errors = new Map<string, Err>();
    const deletions = new Map<string, (typeof req.deletions)[number]>();
    const upserts = new Map<string, (typeof req.upsertions)[number]>();
    for (const d of req.deletions) {
      if (errors.has(d.name)) continue;
      if (deletions.delete(d.name)) { errors.set(d.name, { errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage: TWICE }); continue; }
      const e = validateName(d.name, d.mechanism) ?? (store.get(d.name, BY_TYPE.get(d.mechanism)!) === undefined ? { errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: 'Attempt to delete a user credential that does not exist' } : undefined);
      if (e) errors.set(d.name, e); else deletions.set(d.name, d);
    }
    for (const u of req.upsertions) {
      if (errors.has(u.name)) continue;
      if (deletions.delete(u.name) || upserts.delete(u.name)) { errors.set(u.name, { errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage: TWICE }); continue; }
      let e = validateName(u.name, u.mechanism);
      if (!e && u.iterations < SCRAM_MIN_ITERATIONS) e = { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Too few iterations' };
      else if (!e && u.iterations > SCRAM_MAX_ITERATIONS) e = { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Too many iterations' };
      if (e) errors.set(u.name, e); else upserts.set(u.name, u);
    }
    const results: Array<{ user: string; errorCode: number; errorMessage: string | null }> = [];
    for (const d of deletions.values()) {
      store.delete(d.name, BY_TYPE.get(d.mechanism)!);
      results.push({ user: d.name, errorCode: 0, errorMessage: null });
    }
    for (const u of upserts.values()) {
      const m = BY_TYPE.get(u.mechanism)!;
      store.set(u.name, m, fromSaltedPassword(Buffer.from(u.saltedPassword), Buffer.from(u.salt), u.iterations, m));
      results.push({ user: u.name, errorCode: 0, errorMessage: null });
    }
    for (const [user, e] of errors) results.push({ user, ...e });
    return createAlterUserScramCredentialsResponse({ throttleTimeMs: 0, results });
  },
});
