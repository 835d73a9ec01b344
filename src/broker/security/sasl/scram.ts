// SCRAM-SHA-256/512 server (RFC 5802, RFC 7677), as Kafka's ScramSaslServer: message grammar of
// ScramMessages, keys of ScramFormatter, credentials from the ScramCredentialStore. Failures are
// SaslMechanismError (the client gets Kafka's generic text), except the authorization id mismatch.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SaslAuthenticationError, SaslMechanismError, type SaslServer, type TokenCredentials } from './mechanism.js';
import { hashName, SCRAM_MIN_ITERATIONS, type ScramCredential, type ScramCredentialStore, type ScramMechanism } from './scram-credentials.js';

const SASLNAME = '(?:[\\x01-\\x2B\\x2D-\\x3C\\x3E-\\x7F]|=2C|=3D)+';
const VALUE = '[\\x01-\\x2B\\x2D-\\x7F]+';
const PRINTABLE = '[\\x21-\\x2B\\x2D-\\x7E]+';
const B64 = '(?:[a-zA-Z0-9/+]{4})*(?:[a-zA-Z0-9/+]{3}=|[a-zA-Z0-9/+]{2}==)?';
const RESERVED = `(?:m=${VALUE},)?`;
const EXTENSIONS = `(?:,[A-Za-z]+=${VALUE})*`;
const CLIENT_FIRST = new RegExp(`^n,(?:a=(?<authzid>${SASLNAME}))?,${RESERVED}n=(?<saslname>${SASLNAME}),r=(?<nonce>${PRINTABLE})(?<ext>${EXTENSIONS})$`);
const CLIENT_FINAL = new RegExp(`^c=(?<channel>${B64}),r=(?<nonce>${PRINTABLE})${EXTENSIONS},p=(?<proof>${B64})$`);

/** ScramFormatter.username: "=2C" is ',', "=3D" is '='; any other '=' is invalid. */
export function scramUsername(saslName: string): string {
  const u = saslName.replaceAll('=2C', ',');
  if (u.replaceAll('=3D', '').includes('=')) throw new Error(`Invalid username: ${saslName}`);
  return u.replaceAll('=3D', '=');
}

/** ScramFormatter.secureRandomString: 130 random bits in base 36. */
function secureRandomString(): string {
  const b = randomBytes(17);
  b[0] = b[0]! & 0x03;
  return BigInt('0x' + b.toString('hex')).toString(36);
}

export function createScramServer(mechanism: ScramMechanism, store: ScramCredentialStore, tokens?: TokenCredentials): SaslServer {
  const h = hashName(mechanism);
  let state: 'first' | 'final' | 'complete' | 'failed' = 'first';
  let authorizationId = '';
  let credential: ScramCredential | undefined;
  let clientFirstBare = '';
  let serverFirst = '';
  let nonce = '';
  let tokenExpiry: number | undefined;
  const hmac = (key: Buffer, text: string): Buffer => createHmac(h, key).update(text, 'utf8').digest();

  function first(token: Buffer): Buffer {
    const msg = token.toString('utf8');
    const m = CLIENT_FIRST.exec(msg);
    if (m === null) throw new SaslMechanismError(`Invalid SCRAM client first message format: ${msg}`);
    const g = m.groups!;
    const ext = g.ext!;
    const extensions = new Map<string, string>();
    for (const kv of ext === '' ? [] : ext.slice(1).split(',')) {
      const i = kv.indexOf('=');
      extensions.set(kv.slice(0, i), kv.slice(i + 1));
    }
    const serverNonce = secureRandomString();
    let username: string;
    try {
      username = scramUsername(g.saslname!);
    } catch {
      throw new SaslMechanismError('Authentication failed: Credentials could not be obtained');
    }
    const authzid = g.authzid ?? '';
    if (extensions.get('tokenauth')?.toLowerCase() === 'true') {
      // A delegation token's login: the token id as user name, the owner as principal
      // (ScramSaslServer with ScramServerCallbackHandler's DelegationTokenCredentialCallback).
      const found = tokens?.credential(username, mechanism);
      if (found === undefined) throw new SaslMechanismError(`Token Authentication failed: Invalid tokenId : ${username}`);
      credential = found.credential;
      tokenExpiry = found.token.expiryTimestamp;
      username = found.token.owner.name;
    } else {
      credential = store.get(username, mechanism);
      if (credential === undefined) throw new SaslMechanismError('Authentication failed: Invalid user credentials');
      if (authzid !== '' && authzid !== username) throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    }
    if (credential.iterations < SCRAM_MIN_ITERATIONS) throw new SaslMechanismError(`Iterations ${credential.iterations} is less than the minimum ${SCRAM_MIN_ITERATIONS} for ${mechanism.replaceAll('-', '_')}`);
    authorizationId = username;
    // Kafka rebuilds client-first-message-bare from what it parsed (no "m=" reserved part).
    const extText = [...extensions].map(([k, v]) => `${k}=${v}`).join(',');
    clientFirstBare = `n=${g.saslname},r=${g.nonce}` + (extText === '' ? '' : `,${extText}`);
    nonce = g.nonce! + serverNonce;
    serverFirst = `r=${nonce},s=${credential.salt.toString('base64')},i=${credential.iterations}`;
    state = 'final';
    return Buffer.from(serverFirst, 'utf8');
  }

  function final(token: Buffer): Buffer {
    const msg = token.toString('utf8');
    const m = CLIENT_FINAL.exec(msg);
    if (m === null) throw new SaslMechanismError(`Invalid SCRAM client final message format: ${msg}`);
    const g = m.groups!;
    if (!g.nonce!.endsWith(nonce)) throw new SaslMechanismError('Invalid client nonce in the final client message.');
    const cred = credential!;
    const authMessage = `${clientFirstBare},${serverFirst},c=${g.channel},r=${g.nonce}`;
    const clientSignature = hmac(cred.storedKey, authMessage);
    const proof = Buffer.from(g.proof!, 'base64');
    if (proof.length !== clientSignature.length) throw new SaslMechanismError('Authentication failed: Invalid client final message');
    const clientKey = Buffer.alloc(proof.length);
    for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i]! ^ clientSignature[i]!;
    const computed = createHash(h).update(clientKey).digest();
    if (!timingSafeEqual(computed, cred.storedKey)) throw new SaslMechanismError('Invalid client credentials');
    const serverSignature = hmac(cred.serverKey, authMessage);
    credential = undefined;
    state = 'complete';
    return Buffer.from(`v=${serverSignature.toString('base64')}`, 'utf8');
  }

  return {
    mechanism,
    get complete() { return state === 'complete'; },
    get authorizationId() { return authorizationId; },
    get tokenAuthenticated() { return state === 'complete' && tokenExpiry !== undefined; },
    get credentialExpiresAtMs() { return state === 'complete' ? tokenExpiry : undefined; },
    evaluate(token: Buffer): Buffer {
      try {
        if (state === 'first') return first(token);
        if (state === 'final') return final(token);
        throw new SaslMechanismError(`Unexpected challenge in Sasl server state ${state === 'complete' ? 'COMPLETE' : 'FAILED'}`);
      } catch (e) {
        credential = undefined;
        state = 'failed';
        throw e;
      }
    },
  };
}
