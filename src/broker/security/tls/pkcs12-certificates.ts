// The trusted certificates of a Java PKCS12 truststore. keytool writes such a store with
// certificate bags only (no key), which node's `pfx` option refuses ("Unable to load private key
// from PFX data"), so the bags are read here: @peculiar/asn1-pfx parses the structure and the
// certificate bags' encryption (Java 12+: PBES2 with PBKDF2-HMAC-SHA256 and AES-256-CBC) is undone
// with node:crypto. Legacy PKCS#12 PBE (3DES/RC2 with the PKCS#12 KDF, older keytools) is not
// supported: the error says to convert the store to PEM.
//
// Kafka: DefaultSslEngineFactory.FileBasedStore.load (KeyStore.getInstance("PKCS12")).
import { createDecipheriv, createHash, createHmac, pbkdf2Sync, timingSafeEqual, X509Certificate } from 'node:crypto';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { ContentInfo, id_data, id_encryptedData } from '@peculiar/asn1-cms';
import { AuthenticatedSafe, CertBag, PFX, SafeContents, id_certBag, id_x509Certificate } from '@peculiar/asn1-pfx';
import { derChildren, derInt, derOid, readDer, type Der } from './der.js';

const PBES2 = '1.2.840.113549.1.5.13';
const PBKDF2 = '1.2.840.113549.1.5.12';
const PRF: Record<string, string> = {
  '1.2.840.113549.2.7': 'sha1',
  '1.2.840.113549.2.9': 'sha256',
  '1.2.840.113549.2.10': 'sha384',
  '1.2.840.113549.2.11': 'sha512',
};
const CIPHERS: Record<string, { name: string; keyLen: number }> = {
  '2.16.840.1.101.3.4.1.2': { name: 'aes-128-cbc', keyLen: 16 },
  '2.16.840.1.101.3.4.1.22': { name: 'aes-192-cbc', keyLen: 24 },
  '2.16.840.1.101.3.4.1.42': { name: 'aes-256-cbc', keyLen: 32 },
};

/** The certificates (PEM) of a PKCS12 store. Throws Error with what went wrong (the caller adds which setting). */
export function pkcs12Certificates(der: Buffer, password: string): string[] {
  const pfx = AsnConvert.parse(der, PFX);
  if (pfx.authSafe.contentType !== id_data) throw new Error('a PKCS12 store signed with a public key is not supported');
  const authSafeBytes = Buffer.from(AsnConvert.parse(pfx.authSafe.content, OctetStringValue).value);
  verifyMac(pfx, authSafeBytes, password);
  const certs: string[] = [];
  for (const info of AsnConvert.parse(authSafeBytes, AuthenticatedSafe)) {
    const safeBytes = safeContentsBytes(info, password);
    for (const bag of AsnConvert.parse(safeBytes, SafeContents)) {
      if (bag.bagId !== id_certBag) continue;
      const certBag = AsnConvert.parse(bag.bagValue, CertBag);
      if (certBag.certId !== id_x509Certificate) continue;
      const raw = Buffer.from(AsnConvert.parse(certBag.certValue, OctetStringValue).value);
      certs.push(new X509Certificate(raw).toString());
    }
  }
  return certs;
}

// An OCTET STRING's bytes, through asn1-schema (the ContentInfo and CertBag values wrap one).
class OctetStringValue extends OctetString {
  get value(): ArrayBuffer {
    return this.buffer;
  }
}

function safeContentsBytes(info: ContentInfo, password: string): Buffer {
  if (info.contentType === id_data) return Buffer.from(AsnConvert.parse(info.content, OctetStringValue).value);
  if (info.contentType !== id_encryptedData) throw new Error(`unsupported PKCS12 content ${info.contentType}`);
  // EncryptedData ::= SEQUENCE { version, EncryptedContentInfo ::= SEQUENCE { contentType, alg, [0] IMPLICIT bytes } }
  const [, eci] = derChildren(readDer(Buffer.from(info.content)).node);
  if (eci === undefined) throw new Error('malformed PKCS12 EncryptedData');
  const [, alg, content] = derChildren(eci);
  if (alg === undefined || content === undefined) throw new Error('malformed PKCS12 EncryptedData');
  // [0] primitive holds the bytes; [0] constructed holds OCTET STRING pieces.
  const bytes = content.tag === 0x80 ? content.value : Buffer.concat(derChildren(content).map((c) => c.value));
  return pbes2Decrypt(alg, bytes, password);
}

function pbes2Decrypt(alg: Der, data: Buffer, password: string): Buffer {
  const [oid, params] = derChildren(alg);
  if (oid === undefined || derOid(oid) !== PBES2 || params === undefined) {
    throw new Error(`the PKCS12 certificates are encrypted with ${oid ? derOid(oid) : '?'} (legacy PKCS#12 PBE, not supported): convert the truststore to PEM`);
  }
  const [kdf, enc] = derChildren(params);
  const [kdfOid, kdfParams] = kdf ? derChildren(kdf) : [];
  if (kdfOid === undefined || derOid(kdfOid) !== PBKDF2 || kdfParams === undefined || enc === undefined) throw new Error('unsupported PBES2 key derivation');
  const [salt, iter, ...rest] = derChildren(kdfParams);
  const prfAlg = rest.find((r) => r.tag === 0x30);
  const digest = prfAlg ? PRF[derOid(derChildren(prfAlg)[0] as Der)] : 'sha1';
  const [encOid, iv] = derChildren(enc);
  const cipher = encOid ? CIPHERS[derOid(encOid)] : undefined;
  if (salt === undefined || iter === undefined || digest === undefined || cipher === undefined || iv === undefined) throw new Error('unsupported PBES2 cipher');
  // Java (and OpenSSL) feed PBKDF2 the password's UTF-8 bytes.
  const key = pbkdf2Sync(Buffer.from(password, 'utf8'), salt.value, derInt(iter), cipher.keyLen, digest);
  try {
    const d = createDecipheriv(cipher.name, key, iv.value);
    return Buffer.concat([d.update(data), d.final()]);
  } catch {
    throw new Error('cannot decrypt the PKCS12 certificates: wrong password?');
  }
}

/** PKCS#12 MAC (RFC 7292 appendix B key derivation, BMPString password): a wrong password shows here. */
function verifyMac(pfx: PFX, authSafe: Buffer, password: string): void {
  if (pfx.macData === undefined) return;
  const algOid = pfx.macData.mac.digestAlgorithm.algorithm;
  const hash = { '1.3.14.3.2.26': 'sha1', '2.16.840.1.101.3.4.2.1': 'sha256', '2.16.840.1.101.3.4.2.2': 'sha384', '2.16.840.1.101.3.4.2.3': 'sha512' }[algOid];
  if (hash === undefined) return; // an unknown MAC digest: decryption still tells a wrong password
  const size = { sha1: 20, sha256: 32, sha384: 48, sha512: 64 }[hash] as number;
  const key = pkcs12Kdf(hash, password, Buffer.from(pfx.macData.macSalt.buffer), pfx.macData.iterations ?? 1, 3, size);
  const mac = createHmac(hash, key).update(authSafe).digest();
  const expected = Buffer.from(pfx.macData.mac.digest.buffer);
  if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) throw new Error('the PKCS12 integrity check failed: wrong password?');
}

function pkcs12Kdf(hash: string, password: string, salt: Buffer, iterations: number, id: number, size: number): Buffer {
  const v = hash === 'sha384' || hash === 'sha512' ? 128 : 64;
  const pw = Buffer.alloc((password.length + 1) * 2);
  for (let i = 0; i < password.length; i++) pw.writeUInt16BE(password.charCodeAt(i), i * 2);
  const fill = (src: Buffer): Buffer => {
    const len = src.length === 0 ? 0 : v * Math.ceil(src.length / v);
    const out = Buffer.alloc(len);
    for (let i = 0; i < len; i++) out[i] = src[i % src.length] as number;
    return out;
  };
  const D = Buffer.alloc(v, id);
  const I = Buffer.concat([fill(salt), fill(pw)]);
  let A = Buffer.concat([D, I]);
  for (let n = 0; n < iterations; n++) A = createHash(hash).update(A).digest();
  return A.subarray(0, size);
}

