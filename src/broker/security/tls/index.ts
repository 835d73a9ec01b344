// TLS for SSL and SASL_SSL listeners: node:tls server options from Kafka's ssl.* settings, the
// principal of a client certificate (ssl.principal.mapping.rules), kmock's development
// certificate (`--tls`), and what a failed handshake means in words. Each piece lives in its
// own module; this is the seam the servers import.
export { tlsServerOptions, clientAuth, pemCertificates } from './server-options.js';
export { sslPrincipal, requestedClientCertError, parsePrincipalMappingRules, rfc2253, subjectDn, escapeValue } from './principal.js';
export { makeDevCertificate, makeClientCertificate, type DevCertificate } from './dev-certificate.js';
export { describeTlsClientError, looksLikeTlsClientHello } from './client-errors.js';
export { nodeCiphers, opensslCipherName, protocolRange } from './ciphers.js';
export { pkcs12Certificates, pkcs12KeyAndChain } from './pkcs12-certificates.js';
