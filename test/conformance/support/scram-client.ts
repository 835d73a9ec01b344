// A small SCRAM client (RFC 5802 / 7677) for the security scenarios, independent of kmock's server
// side: a fixed client nonce so both transcripts carry the same client messages; the server's
// nonce, salt and signature differ per broker and are normalised (normaliseScramText).
import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';

export type ScramHash = 'sha256' | 'sha512';
export const FIXED_CLIENT_NONCE = 'kmockconformancenonce0123456789';

/** The client-first message; `extensions` (RFC 7677's, e.g. Kafka's tokenauth=true) follow the nonce. */
export function clientFirst(user: string, nonce = FIXED_CLIENT_NONCE, extensions: Record<string, string> = {}): string {
  const ext = Object.entries(extensions).map(([k, v]) => `,${k}=${v}`).join('');
  return `n,,n=${user},r=${nonce}${ext}`;
}

function attrs(msg: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of msg.split(',')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i)] = part.slice(i + 1);
  }
  return out;
}

function xor(a: Buffer, b: Buffer): Buffer {
  return Buffer.from(a.map((x, i) => x ^ b[i]));
}

/** The client-final message answering `serverFirst` (and the server signature it expects). */
export function clientFinal(
  hash: ScramHash,
  user: string,
  password: string,
  serverFirst: string,
  nonce = FIXED_CLIENT_NONCE,
  extensions: Record<string, string> = {},
): { message: string; serverSignature: string } {
  const a = attrs(serverFirst);
  const salted = pbkdf2Sync(password, Buffer.from(a.s ?? '', 'base64'), Number(a.i), hash === 'sha256' ? 32 : 64, hash);
  const clientKey = createHmac(hash, salted).update('Client Key').digest();
  const storedKey = createHash(hash).update(clientKey).digest();
  const withoutProof = `c=biws,r=${a.r}`;
  const authMessage = `${clientFirst(user, nonce, extensions).slice(3)},${serverFirst},${withoutProof}`;
  const clientSignature = createHmac(hash, storedKey).update(authMessage).digest();
  const serverKey = createHmac(hash, salted).update('Server Key').digest();
  return {
    message: `${withoutProof},p=${xor(clientKey, clientSignature).toString('base64')}`,
    serverSignature: createHmac(hash, serverKey).update(authMessage).digest('base64'),
  };
}

/**
 * A SCRAM server message with what differs between brokers replaced: the server's part of the
 * nonce (after the fixed client nonce), the salt and the server signature. Anything else is kept.
 */
export function normaliseScramText(text: string): string {
  return text
    .split(',')
    .map((p) => {
      if (p.startsWith('r=')) return p.startsWith(`r=${FIXED_CLIENT_NONCE}`) && p.length > 2 + FIXED_CLIENT_NONCE.length ? `r=${FIXED_CLIENT_NONCE}<server-nonce>` : p;
      if (p.startsWith('s=')) return 's=<salt>';
      if (p.startsWith('v=')) return 'v=<server-signature>';
      return p;
    })
    .join(',');
}
