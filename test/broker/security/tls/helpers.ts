// Real node:tls pairs for the TLS tests: a server with the options under test, a client, and
// what each side saw.
import { connect, createServer, type ConnectionOptions, type TLSSocket, type TlsOptions } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { ListenerSettings } from '../../../../src/broker/security/listener-settings.js';

export function settingsOf(values: Record<string, string>, listenerName = 'SSL'): ListenerSettings {
  return { listenerName, get: (k) => values[k], getForMechanism: () => undefined };
}

export interface Pair<T = undefined> {
  /** `inspect` of the server socket, taken at secureConnection (the sockets are closed on return). */
  seen: T | undefined;
  clientCipher: string | undefined;
  clientProtocol: string | null | undefined;
  clientAuthorized: boolean | undefined;
  /** The server side's socket once the handshake finished (undefined: it failed). */
  server: TLSSocket | undefined;
  serverError: Error | undefined;
  client: TLSSocket | undefined;
  clientError: Error | undefined;
}

/** Connects a client to a server made from `serverOptions`; resolves when both sides have settled. */
export async function handshake<T = undefined>(serverOptions: TlsOptions, clientOptions: ConnectionOptions, inspect?: (s: TLSSocket) => T): Promise<Pair<T>> {
  const pair: Pair<T> = { seen: undefined, clientCipher: undefined, clientProtocol: undefined, clientAuthorized: undefined, server: undefined, serverError: undefined, client: undefined, clientError: undefined };
  const server = createServer(serverOptions);
  let serverDone!: () => void;
  const serverSettled = new Promise<void>((r) => (serverDone = r));
  server.on('secureConnection', (s) => {
    pair.server = s;
    if (inspect) pair.seen = inspect(s);
    s.on('error', () => undefined);
    serverDone();
  });
  server.on('tlsClientError', (e) => {
    pair.serverError = e;
    serverDone();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => {
    const c = connect({ host: '127.0.0.1', port, servername: 'localhost', ...clientOptions });
    c.on('secureConnect', () => {
      pair.client = c;
      pair.clientCipher = c.getCipher().name;
      pair.clientProtocol = c.getProtocol();
      pair.clientAuthorized = c.authorized;
      // TLS 1.3 sends the server's verdict on the client certificate after the client's secureConnect.
      setTimeout(resolve, 100);
    });
    c.on('error', (e) => {
      pair.clientError = e;
      resolve();
    });
  });
  await Promise.race([serverSettled, new Promise((r) => setTimeout(r, 2000))]);
  pair.client?.destroy();
  pair.server?.destroy();
  await new Promise<void>((r) => server.close(() => r()));
  return pair;
}
