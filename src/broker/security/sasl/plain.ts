// SASL/PLAIN, the server side (org.apache.kafka.common.security.plain.internals.PlainSaslServer,
// with PlainServerCallbackHandler checking the JAAS config's users): one token,
// "authzid NUL authcid NUL password".
import { timingSafeEqual } from 'node:crypto';
import { SaslAuthenticationError, SaslMechanismError, type SaslServer } from './mechanism.js';

export class PlainSaslServer implements SaslServer {
  readonly mechanism = 'PLAIN';
  complete = false;
  authorizationId = '';

  constructor(private readonly passwordOf: (user: string) => string | undefined) {}

  evaluate(token: Buffer): Buffer {
    const tokens = token.toString('utf8').split('\u0000');
    if (tokens.length !== 3) throw new SaslMechanismError(`Invalid SASL/PLAIN response: expected 3 tokens, got ${tokens.length}`);
    const [authzid, username, password] = tokens as [string, string, string];
    if (username === '') throw new SaslMechanismError('Authentication failed: username not specified');
    if (password === '') throw new SaslMechanismError('Authentication failed: password not specified');
    const expected = this.passwordOf(username);
    if (expected === undefined || !sameText(expected, password)) throw new SaslAuthenticationError('Authentication failed: Invalid username or password');
    if (authzid !== '' && authzid !== username) throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    this.authorizationId = username;
    this.complete = true;
    return Buffer.alloc(0);
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
