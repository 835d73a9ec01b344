// A raw-socket ApiVersions probe: connect, send one ApiVersions v2 request, wait for the whole
// response. Hand-written on purpose (no client library in the timed path): the same bytes go to
// kmock, to librdkafka's mock (which serves ApiVersions 0-2) and to the bare Node server.
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';

const CLIENT_ID = 'kmock-bench';

export function apiVersionsRequest(correlationId: number): Buffer {
  const id = Buffer.from(CLIENT_ID);
  // header v1: api_key, api_version, correlation_id, client_id (int16 length); body v2 is empty
  const b = Buffer.alloc(4 + 2 + 2 + 4 + 2 + id.length);
  b.writeInt32BE(b.length - 4, 0);
  b.writeInt16BE(18, 4);
  b.writeInt16BE(2, 6);
  b.writeInt32BE(correlationId, 8);
  b.writeInt16BE(id.length, 12);
  id.copy(b, 14);
  return b;
}

export interface ProbeResult {
  /** performance.now() when the full response had arrived. */
  answeredAt: number;
  /** Number of APIs in the response (0 for the bare server). */
  apiCount: number;
}

/** Connects, sends ApiVersions v2 and resolves when the complete response has arrived. */
export function probeApiVersions(host: string, port: number, timeoutMs = 10_000): Promise<ProbeResult> {
  const correlationId = 0x4b4d;
  return new Promise<ProbeResult>((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true });
    let buf: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no ApiVersions answer from ${host}:${port} within ${timeoutMs} ms`));
    }, timeoutMs);
    const fail = (e: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(e);
    };
    socket.once('error', fail);
    socket.once('connect', () => socket.write(apiVersionsRequest(correlationId)));
    socket.on('data', (chunk: Buffer) => {
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      if (buf.length < 4) return;
      const size = buf.readInt32BE(0);
      if (buf.length < 4 + size) return;
      const answeredAt = performance.now();
      clearTimeout(timer);
      socket.destroy();
      if (buf.readInt32BE(4) !== correlationId) return reject(new Error('ApiVersions: wrong correlation id'));
      const errorCode = buf.readInt16BE(8);
      if (errorCode !== 0) return reject(new Error(`ApiVersions: error code ${errorCode}`));
      resolve({ answeredAt, apiCount: buf.readInt32BE(10) });
    });
  });
}
