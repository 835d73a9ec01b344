// SCRAM-SHA-256 / SCRAM-SHA-512, the server side (RFC 5802, RFC 7677):
// org.apache.kafka.common.security.scram.internals.ScramSaslServer with ScramMessages' formats
// and ScramFormatter's arithmetic. Two client messages: client-first (user, nonce, extensions),
// answered with server-first (nonce + ours, salt, iterations); client-final (proof), answered with
// server-final (our signature).
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SaslAuthenticationError, SaslMechanismError, type SaslServer } from './mechanism.js';
import { SCRAM_HASH, type ScramCredential, type ScramMechanism } from './scram-credentials.js';

/** ScramMessages.ClientFirstMessage */
const CLIENT_FIRST = /^n,(a=([^,]*))?,n=([^,]*),r=([^,]*)(.*)$/s;
/** ScramMessages.ClientFinalMessage */
const CLIENT_FINAL = /^c=([^,]*),r=([^,]*)(.*),p=([A-Za-z0-9+/]*=*)$/s;
/** ScramSaslServer.SUPPORTED_EXTENSIONS: delegation tokens' "tokenauth" (kmock has no tokens: a token login fails). */
const SUPPORTED_EXTENSIONS = new Set(['tokenauth']);

/** ScramFormatter.username: =2C and =3D decoded, any other "=" refused. */
function saslNameToUsername(saslName: string): string {
  const username = saslName.replace(/=2C/g, ',');
  if (username.replace(/=3D/g, '').includes('=')) throw new SaslMechanismError('Invalid username in SCRAM client first message');
  return username.replace(/=3D/g, '=');
}

/** ScramExtensions: "key=value" pairs after the nonce, comma separated. */
function extensionKeys(text: string): string[] {
  return text.split(',').filter((s) => s !== '').map((kv) => kv.split('=')[0]!);
}

/** ScramFormatter.secureRandomString: 130 random bits in base 36. */
function serverNonce(): string {
  return BigInt(`0x${randomBytes(17).toString('hex')}`).toString(36);
}

export class ScramSaslServer implements SaslServer {
  complete = false;
  authorizationId = '';
  private state: 'client-first' | 'client-final' | 'done' = 'client-first';
  private credential: ScramCredential | undefined;
  private clientFirstBare = '';
  private serverFirst = '';
  private nonce = '';

  constructor(
    readonly mechanism: ScramMechanism,
    private readonly credentialOf: (user: string) => ScramCredential | undefined,
  ) {}

  evaluate(token: Buffer): Buffer {
    const text = token.toString('utf8');
    if (this.state === 'client-first') return this.clientFirst(text);
    if (this.state === 'client-final') return this.clientFinal(text);
    throw new SaslMechanismError('Unexpected SASL response: authentication already complete');
  }

  private clientFirst(text: string): Buffer {
    const m = CLIENT_FIRST.exec(text);
    if (m === null) throw new SaslMechanismError(`Invalid SCRAM client first message format: ${text.length} bytes`);
    const [, authzPart = '', authzid = '', saslName, clientNonce, extensions] = m as unknown as [string, string, string, string, string, string];
    const unsupported = extensionKeys(extensions).filter((k) => !SUPPORTED_EXTENSIONS.has(k));
    if (unsupported.length > 0) throw new SaslMechanismError(`Unsupported extensions will not be processed: ${unsupported.join(',')}`);
    if (extensionKeys(extensions).includes('tokenauth')) throw new SaslMechanismError('Token authentication is not supported by kmock');
    const username = saslNameToUsername(saslName);
    const credential = this.credentialOf(username);
    if (credential === undefined) throw new SaslMechanismError('Authentication failed: Invalid user credentials');
    if (authzid !== '' && authzid !== username) throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    if (credential.iterations < SCRAM_HASH[this.mechanism].minIterations) throw new SaslMechanismError(`Iterations ${credential.iterations} is less than the minimum ${SCRAM_HASH[this.mechanism].minIterations} for ${this.mechanism}`);
    this.credential = credential;
    this.authorizationId = username;
    // client-first-message-bare: what follows the GS2 header "n,[a=authzid],".
    this.clientFirstBare = text.slice(`n,${authzPart},`.length);
    this.nonce = clientNonce + serverNonce();
    this.serverFirst = `r=${this.nonce},s=${credential.salt.toString('base64')},i=${credential.iterations}`;
    this.state = 'client-final';
    return Buffer.from(this.serverFirst, 'utf8');
  }

  private clientFinal(text: string): Buffer {
    const m = CLIENT_FINAL.exec(text);
    if (m === null) throw new SaslMechanismError('Invalid SCRAM client final message format');
    const [, , nonce, , proofB64] = m as unknown as [string, string, string, string, string];
    if (nonce !== this.nonce) throw new SaslMechanismError('Invalid client nonce in the final client message.');
    const { hash } = SCRAM_HASH[this.mechanism];
    const credential = this.credential!;
    const withoutProof = text.slice(0, text.lastIndexOf(',p='));
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const clientSignature = createHmac(hash, credential.storedKey).update(authMessage).digest();
    const proof = Buffer.from(proofB64, 'base64');
    if (proof.length !== clientSignature.length) throw new SaslMechanismError('Invalid client credentials');
    const clientKey = Buffer.alloc(proof.length);
    for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i]! ^ clientSignature[i]!;
    const storedKey = createHash(hash).update(clientKey).digest();
    if (!timingSafeEqual(storedKey, credential.storedKey)) throw new SaslMechanismError('Invalid client credentials');
    const serverSignature = createHmac(hash, credential.serverKey).update(authMessage).digest();
    this.credential = undefined;
    this.state = 'done';
    this.complete = true;
    return Buffer.from(`v=${serverSignature.toString('base64')}`, 'utf8');
  }
}
