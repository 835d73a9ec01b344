// The trusted certificates of a Java PKCS12 truststore. keytool writes such a store with
// certificate bags only (no key), which node's `pfx` option refuses ("Unable to load private key
// from PFX data"), so the bags are read here with the DER reader (RFC 7292's structure) and the
// certificate bags' encryption (Java 12+: PBES2 with PBKDF2-HMAC-SHA256 and AES-256-CBC) is undone
// with node:crypto. Legacy PKCS#12 PBE (3DES/RC2 with the PKCS#12 KDF, older keytools) is not
// supported: the error says to convert the store to PEM.
//
// Kafka: DefaultSslEngineFactory.FileBasedStore.load (KeyStore.getInstance("PKCS12")).
import { createDecipheriv, createPrivateKey, createHash, createHmac, pbkdf2Sync, timingSafeEqual, X509Certificate } from 'node:crypto';
import { derChildren, derInt, derOid, readDer, type Der } from './der.js';

const ID_DATA = '1.2.840.113549.1.7.1';
const ID_ENCRYPTED_DATA = '1.2.840.113549.1.7.6';
const SHROUDED_KEY_BAG = '1.2.840.113549.1.12.10.1.2';
const CERT_BAG = '1.2.840.113549.1.12.10.1.3';
const X509_CERTIFICATE = '1.2.840.113549.1.9.22.1';
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
  return readPkcs12(der, password).certs;
}

/**
 * The key (decrypted with `keyPassword`) and chain (leaf first) of a PKCS12 keystore whose key is
 * encrypted under another password than the store, which node's `pfx` (one passphrase) can't take.
 */
export function pkcs12KeyAndChain(der: Buffer, storePassword: string, keyPassword: string): { key: string; cert: string } {
  const { certs, shroudedKeys } = readPkcs12(der, storePassword);
  const encrypted = shroudedKeys[0];
  if (encrypted === undefined) throw new Error('the PKCS12 keystore holds no private key');
  const key = createPrivateKey({ key: encrypted, format: 'der', type: 'pkcs8', passphrase: keyPassword });
  const leaf = certs.findIndex((c) => new X509Certificate(c).checkPrivateKey(key));
  if (leaf < 0) throw new Error('the PKCS12 keystore holds no certificate for its private key');
  const chain = [certs[leaf] as string, ...certs.filter((_, i) => i !== leaf)];
  return { key: key.export({ type: 'pkcs8', format: 'pem' }) as string, cert: chain.join('') };
}

function readPkcs12(der: Buffer, password: string): { certs: string[]; shroudedKeys: Buffer[] } {
  // PFX ::= SEQUENCE { version, authSafe ContentInfo, macData? }
  const [, authSafe, macData] = derChildren(readDer(der).node);
  if (authSafe === undefined) throw new Error('not a PKCS12 store');
  const authSafeBytes = dataContent(authSafe);
  if (macData !== undefined) verifyMac(macData, authSafeBytes, password);
  const certs: string[] = [];
  const shroudedKeys: Buffer[] = [];
  // AuthenticatedSafe ::= SEQUENCE OF ContentInfo, each holding SafeContents ::= SEQUENCE OF SafeBag
  for (const info of derChildren(readDer(authSafeBytes).node)) {
    for (const bag of derChildren(readDer(safeContentsBytes(info, password)).node)) {
      // SafeBag ::= SEQUENCE { bagId, [0] EXPLICIT bagValue, attributes? }; CertBag ::= SEQUENCE { certId, [0] EXPLICIT OCTET STRING }
      const [bagId, bagValue] = derChildren(bag);
      if (bagId === undefined || bagValue === undefined) continue;
      // pkcs8ShroudedKeyBag: an EncryptedPrivateKeyInfo, which node:crypto decrypts itself.
      if (derOid(bagId) === SHROUDED_KEY_BAG) shroudedKeys.push((derChildren(bagValue)[0] as Der).raw);
      if (derOid(bagId) !== CERT_BAG) continue;
      const [certId, certValue] = derChildren(derChildren(bagValue)[0] as Der);
      if (certId === undefined || derOid(certId) !== X509_CERTIFICATE || certValue === undefined) continue;
      const octets = derChildren(certValue)[0] as Der;
      certs.push(new X509Certificate(octets.value).toString());
    }
  }
  return { certs, shroudedKeys };
}

/** The bytes of a ContentInfo of type data: SEQUENCE { contentType, [0] EXPLICIT OCTET STRING }. */
function dataContent(info: Der): Buffer {
  const [type, content] = derChildren(info);
  if (type === undefined || derOid(type) !== ID_DATA || content === undefined) throw new Error('a PKCS12 store signed with a public key is not supported');
  const octets = derChildren(content)[0];
  if (octets === undefined) throw new Error('malformed PKCS12 content');
  // A constructed OCTET STRING (BER) would hold pieces; DER has one primitive string.
  return octets.tag === 0x24 ? Buffer.concat(derChildren(octets).map((c) => c.value)) : octets.value;
}

function safeContentsBytes(info: Der, password: string): Buffer {
  const [type, content] = derChildren(info);
  if (type === undefined || content === undefined) throw new Error('malformed PKCS12 content');
  if (derOid(type) === ID_DATA) return dataContent(info);
  if (derOid(type) !== ID_ENCRYPTED_DATA) throw new Error(`unsupported PKCS12 content ${derOid(type)}`);
  // EncryptedData ::= SEQUENCE { version, EncryptedContentInfo ::= SEQUENCE { contentType, alg, [0] IMPLICIT bytes } }
  const [, eci] = derChildren(derChildren(content)[0] as Der);
  if (eci === undefined) throw new Error('malformed PKCS12 EncryptedData');
  const [, alg, encrypted] = derChildren(eci);
  if (alg === undefined || encrypted === undefined) throw new Error('malformed PKCS12 EncryptedData');
  // [0] primitive holds the bytes; [0] constructed holds OCTET STRING pieces.
  const bytes = encrypted.tag === 0x80 ? encrypted.value : Buffer.concat(derChildren(encrypted).map((c) => c.value));
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

const MAC_DIGESTS: Record<string, [string, number]> = {
  '1.3.14.3.2.26': ['sha1', 20],
  '2.16.840.1.101.3.4.2.1': ['sha256', 32],
  '2.16.840.1.101.3.4.2.2': ['sha384', 48],
  '2.16.840.1.101.3.4.2.3': ['sha512', 64],
};

/** PKCS#12 MAC (RFC 7292 appendix B key derivation, BMPString password): a wrong password shows here. */
function verifyMac(macData: Der, authSafe: Buffer, password: string): void {
  // MacData ::= SEQUENCE { mac DigestInfo ::= SEQUENCE { AlgorithmIdentifier, digest OCTET STRING }, macSalt, iterations DEFAULT 1 }
  const [mac, salt, iterations] = derChildren(macData);
  const [alg, digest] = mac ? derChildren(mac) : [];
  const algOid = alg ? derChildren(alg)[0] : undefined;
  if (algOid === undefined || digest === undefined || salt === undefined) throw new Error('malformed PKCS12 MAC');
  const known = MAC_DIGESTS[derOid(algOid)];
  if (known === undefined) return; // an unknown MAC digest: decryption still tells a wrong password
  const [hash, size] = known;
  const key = pkcs12Kdf(hash, password, salt.value, iterations ? derInt(iterations) : 1, 3, size);
  const computed = createHmac(hash, key).update(authSafe).digest();
  if (computed.length !== digest.value.length || !timingSafeEqual(computed, digest.value)) throw new Error('the PKCS12 integrity check failed: wrong password?');
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

