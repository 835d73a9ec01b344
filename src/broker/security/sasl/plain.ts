// SASL/PLAIN (RFC 4616), as Kafka's PlainSaslServer with PlainServerCallbackHandler: the password
// of `user_<name>` in the listener's PlainLoginModule JAAS options, or kmock's sasl.users.
import { timingSafeEqual } from 'node:crypto';
import { SaslAuthenticationError, type SaslServer } from './mechanism.js';

export type PasswordLookup = (user: string) => string | undefined;

function equalConstantTime(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

export function createPlainServer(password: PasswordLookup): SaslServer {
  let complete = false;
  let authorizationId = '';
  return {
    mechanism: 'PLAIN',
    get complete() { return complete; },
    get authorizationId() { return authorizationId; },
    evaluate(token: Buffer): Buffer {
      const parts = token.toString('utf8').split('\u0000');
      // PlainSaslServer.extractTokens looks at no more than four pieces.
      if (parts.length !== 3) throw new SaslAuthenticationError(`Invalid SASL/PLAIN response: expected 3 tokens, got ${Math.min(parts.length, 4)}`);
      const [authzid, user, pass] = parts as [string, string, string];
      if (user === '') throw new SaslAuthenticationError('Authentication failed: username not specified');
      if (pass === '') throw new SaslAuthenticationError('Authentication failed: password not specified');
      const expected = password(user);
      if (expected === undefined || !equalConstantTime(pass, expected)) throw new SaslAuthenticationError('Authentication failed: Invalid username or password');
      if (authzid !== '' && authzid !== user) throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
      authorizationId = user;
      complete = true;
      return Buffer.alloc(0);
    },
  };
}
