// A failed TLS handshake in the words of the one log line "<phrase> on the SSL listener NAME;
// closing". OpenSSL's reason codes (node: err.code ERR_SSL_<REASON>, and the reason text in the
// message) say what the client did; Kafka's broker logs the SSLException in its place
// (SslTransportLayer.handshake failures, "Failed authentication with ... (SSL handshake failed)").

const PHRASES: [RegExp, string][] = [
  [/WRONG_VERSION_NUMBER|wrong version number|UNKNOWN_PROTOCOL|unknown protocol|RECORD_LAYER_FAILURE/i, 'plaintext (non-TLS) bytes, a Kafka client without security.protocol=SSL?'],
  [/HTTP_REQUEST|http request|HTTPS_PROXY_REQUEST/i, 'an HTTP request'],
  [/NO_SHARED_CIPHER|no shared cipher|NO_CIPHERS/i, 'no cipher suite in common with the client (ssl.cipher.suites)'],
  [/UNSUPPORTED_PROTOCOL|unsupported protocol|PROTOCOL_VERSION|VERSION_TOO_LOW|VERSION_TOO_HIGH/i, 'no TLS version in common with the client (ssl.enabled.protocols)'],
  [/PEER_DID_NOT_RETURN_A_CERTIFICATE|CERTIFICATE_REQUIRED|peer did not return a certificate/i, 'a client without a certificate (ssl.client.auth=required)'],
  [/UNKNOWN_CA|unknown ca/i, 'a client that does not trust the server certificate (unknown CA)'],
  [/BAD_CERTIFICATE|CERTIFICATE_UNKNOWN|bad certificate|certificate unknown/i, 'a client that refused the server certificate (hostname or trust)'],
  [/CERTIFICATE_VERIFY_FAILED|certificate verify failed|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY_LEAF|SELF_SIGNED|CERT_HAS_EXPIRED|unable to (get|verify)/i, 'a client certificate the truststore does not trust'],
  [/ECONNRESET|socket hang up/i, 'a client that closed the connection during the TLS handshake'],
  [/ETIMEDOUT|timed? ?out/i, 'a TLS handshake that timed out'],
];

export function describeTlsClientError(err: Error & { code?: string }): string {
  const text = `${err.code ?? ''} ${err.message ?? ''}`;
  for (const [re, phrase] of PHRASES) if (re.test(text)) return phrase;
  return `a failed TLS handshake (${err.code ?? err.message})`;
}

/** A TLS record header starting a ClientHello: handshake (0x16), version 3.0 to 3.4 (SSLv3 to TLS 1.3). */
export function looksLikeTlsClientHello(firstBytes: Buffer): boolean {
  return firstBytes.length >= 3 && firstBytes[0] === 0x16 && firstBytes[1] === 0x03 && (firstBytes[2] as number) <= 0x04;
}
