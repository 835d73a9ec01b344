// The principal of a TLS client certificate, as Kafka's DefaultKafkaPrincipalBuilder makes it for
// SSL: the peer's X500Principal.getName() (RFC 2253) through SslPrincipalMapper
// (ssl.principal.mapping.rules), then "User:<name>"; no certificate: ANONYMOUS.
import { derChildren, derOid, readDer, type Der } from './der.js';
import type { TLSSocket } from 'node:tls';
import { ConfigError } from '../../config.js';
import { ANONYMOUS, userPrincipal, type PrincipalName } from '../types.js';

/** X500Principal's RFC 2253 keywords; any other attribute prints as OID=#hex (its DER value). */
const KEYWORDS: Record<string, string> = {
  '2.5.4.3': 'CN', '2.5.4.6': 'C', '2.5.4.7': 'L', '2.5.4.8': 'ST', '2.5.4.10': 'O', '2.5.4.11': 'OU',
  '2.5.4.9': 'STREET', '0.9.2342.19200300.100.1.25': 'DC', '0.9.2342.19200300.100.1.1': 'UID',
};

/** A DER Name rendered as X500Principal.getName(): most specific RDN first, multi-valued RDNs joined by '+'. */
export function rfc2253(nameDer: Buffer): string {
  const rdns = derChildren(readDer(nameDer).node);
  return rdns.reverse().map((rdn) => derChildren(rdn).map((atv) => {
    const [type, value] = derChildren(atv) as [Der, Der];
    const oid = derOid(type);
    const keyword = KEYWORDS[oid];
    const text = keyword === undefined ? undefined : directoryString(value);
    // X500Principal prints an attribute it has no keyword for (or a non-string value) as #hex of its DER.
    if (text === undefined) return `${keyword ?? oid}=#${value.raw.toString('hex')}`;
    return `${keyword}=${escapeValue(text)}`;
  }).join('+')).join(',');
}

function directoryString(v: Der): string | undefined {
  switch (v.tag) {
    case 0x0c: // UTF8String
      return v.value.toString('utf8');
    case 0x12: case 0x13: case 0x14: case 0x16: case 0x1a: // Numeric, Printable, T61, IA5, Visible
      return v.value.toString('latin1');
    case 0x1e: // BMPString: UTF-16BE
      return Buffer.from(v.value).swap16().toString('utf16le');
    case 0x1c: { // UniversalString: UTF-32BE
      let out = '';
      for (let i = 0; i + 4 <= v.value.length; i += 4) out += String.fromCodePoint(v.value.readUInt32BE(i));
      return out;
    }
    default:
      return undefined;
  }
}

/** RFC 2253 section 2.4: , + " \ < > ; anywhere, # first, a space first or last. */
export function escapeValue(v: string): string {
  let out = v.replace(/[,+"\\<>;]/g, (c) => `\\${c}`);
  if (out.endsWith(' ')) out = `${out.slice(0, -1)}\\ `;
  if (out.startsWith('#') || out.startsWith(' ')) out = `\\${out}`;
  return out;
}

/** The subject DN of a certificate (DER). */
export function subjectDn(certDer: Buffer): string {
  // Certificate ::= SEQUENCE { tbsCertificate ::= SEQUENCE { [0] version?, serial, signature, issuer, validity, subject, ... } }
  const [tbs] = derChildren(readDer(certDer).node);
  const fields = derChildren(tbs as Der);
  const first = fields[0]?.tag === 0xa0 ? 1 : 0;
  const subject = fields[first + 4];
  if (subject === undefined) throw new Error('malformed certificate');
  return rfc2253(subject.raw);
}

interface Rule {
  text: string;
  apply(dn: string): string | undefined;
}

// SslPrincipalMapper's grammar: DEFAULT, or RULE:pattern/replacement/ with an optional L or U,
// '/' escaped as '\/' inside; rules are separated by commas (empty ones skipped).
const RULE = String.raw`(DEFAULT)|RULE:((\\.|[^\\/])*)/((\\.|[^\\/])*)/([LU]?).*?|(.*?)`;
const SPLITTER = new RegExp(String.raw`\s*(${RULE})\s*(,\s*|$)`, 'g');
const PARSER = new RegExp(`^(?:${RULE})`);

/** The rules of ssl.principal.mapping.rules; throws ConfigError for a rule Kafka would refuse. */
export function parsePrincipalMappingRules(text: string | undefined): (dn: string) => string {
  const source = (text ?? 'DEFAULT').trim();
  const rules: Rule[] = [];
  for (const m of source.matchAll(SPLITTER)) {
    const rule = m[1] as string;
    const p = PARSER.exec(rule);
    if (p === null || p[0].length !== rule.length) {
      throw new ConfigError(`ssl.principal.mapping.rules: invalid rule \`${rule}\`${p ? `, unmatched substring: \`${rule.slice(p[0].length)}\`` : ''}`);
    }
    if (p[1] !== undefined) rules.push({ text: 'DEFAULT', apply: (dn) => dn });
    else if (p[2] !== undefined) rules.push(patternRule(rule, p[2], p[4] ?? '', p[6] ?? ''));
  }
  return (dn) => {
    for (const r of rules) {
      const name = r.apply(dn);
      if (name !== undefined) return name;
    }
    throw new Error(`No rules apply to ${dn}, rules [${rules.map((r) => r.text).join(', ')}]`);
  };
}

function patternRule(text: string, pattern: string, replacement: string, caseFlag: string): Rule {
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'g');
  } catch (e) {
    throw new ConfigError(`ssl.principal.mapping.rules: invalid pattern in \`${text}\`: ${(e as Error).message}`);
  }
  const whole = new RegExp(`^(?:${pattern})$`);
  return {
    text,
    apply(dn) {
      // Rule.apply: the pattern must match the whole DN, then String.replaceAll with Java's replacement syntax.
      const m = whole.exec(dn);
      if (m === null) return undefined;
      const groups = m.length - 1;
      re.lastIndex = 0;
      const out = dn.replace(re, (...args: unknown[]) => javaReplacement(replacement, args.slice(0, groups + 1) as (string | undefined)[]));
      return caseFlag === 'L' ? out.toLowerCase() : caseFlag === 'U' ? out.toUpperCase() : out;
    },
  };
}

/**
 * Java's Matcher replacement: `\x` is a literal x, `$n` a group (digits taken while the number
 * stays a group). A `$n` past the last group is literal, as SslPrincipalMapper's
 * escapeLiteralBackReferences makes it (Java itself would throw).
 */
function javaReplacement(replacement: string, groups: (string | undefined)[]): string {
  let out = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i] as string;
    if (c === '\\' && i + 1 < replacement.length) {
      out += replacement[++i];
    } else if (c === '$' && /[0-9]/.test(replacement[i + 1] ?? '')) {
      let n = Number(replacement[i + 1]);
      if (n >= groups.length) {
        out += '$';
        continue;
      }
      let j = i + 2;
      while (j < replacement.length && /[0-9]/.test(replacement[j] as string) && n * 10 + Number(replacement[j]) < groups.length) n = n * 10 + Number(replacement[j++]);
      out += groups[n] ?? '';
      i = j - 1;
    } else {
      out += c;
    }
  }
  return out;
}

const MAPPERS = new Map<string, (dn: string) => string>();

/**
 * The principal of a TLS connection. A certificate the server could not verify (possible under
 * ssl.client.auth=requested, where node only reports it) does not authenticate anybody.
 */
export function sslPrincipal(socket: TLSSocket, mappingRules: string): PrincipalName {
  const cert = socket.getPeerX509Certificate();
  if (cert === undefined || !socket.authorized) return ANONYMOUS;
  let mapper = MAPPERS.get(mappingRules);
  if (mapper === undefined) MAPPERS.set(mappingRules, (mapper = parsePrincipalMappingRules(mappingRules)));
  return userPrincipal(mapper(subjectDn(cert.raw)));
}

/** Under ssl.client.auth=requested: why a presented certificate must fail the connection (null: fine). */
export function requestedClientCertError(socket: TLSSocket): string | null {
  if (socket.authorized || socket.getPeerX509Certificate() === undefined) return null;
  return String(socket.authorizationError ?? 'certificate not trusted');
}
