import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/broker/config.js';
import { escapeValue, makeClientCertificate, makeDevCertificate, parsePrincipalMappingRules, sslPrincipal, subjectDn, tlsServerOptions } from '../../../../src/broker/security/tls/index.js';
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { handshake, settingsOf } from './helpers.js';

// Examples from Kafka's SslPrincipalMapperTest.
describe('parsePrincipalMappingRules', () => {
  it('accepts the valid rules', () => {
    for (const r of [
      'DEFAULT',
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/',
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, DEFAULT',
      'RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/',
      'RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L',
      'RULE:^cn=(.?),ou=(.?),dc=(.?),dc=(.?)$/$1@$2/U',
      'RULE:^CN=([^,ADEFLTU,]+)(,.*|$)/$1/',
      'RULE:^CN=([^,DEFAULT,]+)(,.*|$)/$1/',
    ]) expect(() => parsePrincipalMappingRules(r), r).not.toThrow();
  });

  it('refuses the invalid ones with a ConfigError', () => {
    for (const r of [
      'default', 'DEFAUL', 'DEFAULT/L', 'DEFAULT/U',
      'RULE:CN=(.*?),OU=ServiceUsers.*/$1',
      'rule:^CN=(.*?),OU=ServiceUsers.*$/$1/',
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L/U',
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/L',
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/U',
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/LU',
    ]) expect(() => parsePrincipalMappingRules(r), r).toThrow(ConfigError);
  });

  it('maps DNs as testSslPrincipalMapper does', () => {
    const map = parsePrincipalMappingRules([
      'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L',
      'RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L',
      'RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U',
      'RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U',
      'DEFAULT',
    ].join(', '));
    expect(map('CN=Duke,OU=ServiceUsers,O=Org,C=US')).toBe('duke');
    expect(map('CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US')).toBe('duke@sme');
    expect(map('cn=duke,ou=sme,dc=mycp,dc=com')).toBe('DUKE@SME');
    expect(map('cN=duke,OU=JavaSoft,O=Sun Microsystems')).toBe('DUKE');
    expect(map('OU=JavaSoft,O=Sun Microsystems,C=US')).toBe('OU=JavaSoft,O=Sun Microsystems,C=US');
  });

  it('handles commas escaped in a CN (testCommaWithWhitespace) and literal back references', () => {
    const map = parsePrincipalMappingRules('RULE:^CN=((\\\\, *|\\w)+)(,.*|$)/$1/,DEFAULT');
    expect(map('CN=Tkac\\, Adam,OU=ITZ,DC=geodis,DC=cz')).toBe('Tkac\\, Adam');
    expect(parsePrincipalMappingRules('RULE:^CN=(.*)$/$1@$4/')('CN=x')).toBe('x@$4');
    expect(parsePrincipalMappingRules('RULE:^CN=(.*)$/\\$1/')('CN=x')).toBe('$1');
  });

  it('throws when no rule applies', () => {
    expect(() => parsePrincipalMappingRules('RULE:^CN=(.*)$/$1/')('O=x')).toThrow(/No rules apply to O=x/);
  });
});

describe('subjectDn and sslPrincipal', () => {
  it('escapes values as RFC 2253 says', () => {
    expect(escapeValue('a,b+c"d\\e<f>g;h')).toBe('a\\,b\\+c\\"d\\\\e\\<f\\>g\\;h');
    expect(escapeValue('#x ')).toBe('\\#x\\ ');
    expect(escapeValue(' ')).toBe('\\ ');
  });

  it('renders the subject as X500Principal.getName() (RFC 2253, most specific first)', async () => {
    const dev = await makeDevCertificate([], null);
    const alice = await makeClientCertificate(dev, 'CN=alice,OU=eng,O=kmock,C=US');
    expect(subjectDn(new X509Certificate(alice.certPem).raw)).toBe('CN=alice,OU=eng,O=kmock,C=US');
    const odd = await makeClientCertificate(dev, 'a,b+c');
    expect(subjectDn(new X509Certificate(odd.certPem).raw)).toBe('CN=a\\,b\\+c');
  });

  it('is the mapped client certificate DN under mTLS, ANONYMOUS without one', async () => {
    const dev = await makeDevCertificate([], null);
    const alice = await makeClientCertificate(dev, 'CN=alice,OU=eng,O=kmock,C=US');
    const options = tlsServerOptions(settingsOf({ 'ssl.client.auth': 'requested' }), dev);
    const principals = (s: TLSSocket) => [sslPrincipal(s, 'DEFAULT'), sslPrincipal(s, 'RULE:^CN=(.*?),OU=(.*?),.*$/$1@$2/U,DEFAULT')];
    const withCert = await handshake(options, { ca: dev.caPem, cert: alice.certPem, key: alice.keyPem }, principals);
    expect(withCert.seen).toEqual(['User:CN=alice,OU=eng,O=kmock,C=US', 'User:ALICE@ENG']);
    const without = await handshake(options, { ca: dev.caPem }, principals);
    expect(without.seen).toEqual(['User:ANONYMOUS', 'User:ANONYMOUS']);
  });
});
