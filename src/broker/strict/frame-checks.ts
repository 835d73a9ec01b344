// The strict-clients checks on a request frame as a whole, called by connection.ts: the API
// version against what ApiVersions advertises, and bytes left over after the body. Both only
// look at the frame kmock already has: nothing is copied.
import { apiByKey, DecodeError, isFlexible, Reader, type RequestHeaderInfo } from '../../codec/index.js';
import type { ConnectionInfo } from '../connection.js';
import type { ServedApi } from '../services.js';
import type { ClientFindings } from './findings.js';

const API_VERSIONS_KEY = 18;
/** Leftover bytes shown in a trailing-bytes finding, as hex. */
const SHOWN_BYTES = 16;

/**
 * A request of an API kmock does not serve, or at a version outside the one it serves: exactly
 * what ApiVersions advertises (handlers/index.ts is both). Called before kmock closes the
 * connection (or answers ApiVersions' UNSUPPORTED_VERSION), as Kafka does. ApiVersions above
 * its max is how KIP-511 clients start (they send their newest version and retry with the
 * broker's), so it is no finding.
 */
export function checkUnadvertisedVersion(
  findings: ClientFindings,
  connection: ConnectionInfo,
  frame: Buffer,
  header: { apiKey: number; apiVersion: number; correlationId: number },
  served: ServedApi | undefined,
): void {
  const { apiKey, apiVersion } = header;
  if (served !== undefined && apiKey === API_VERSIONS_KEY && apiVersion > served.maxVersion) return;
  const name = apiByKey(apiKey)?.name;
  const detail =
    served === undefined
      ? `${name ?? `API key ${apiKey}`} is not among the APIs this broker advertises in ApiVersions`
      : `${name} v${apiVersion}: ApiVersions advertises ${name} v${served.minVersion}-${served.maxVersion}`;
  findings.record('unadvertised-version', connection, { ...header, clientId: peekClientId(frame) }, detail);
}

/**
 * `trailing` bytes after the request body (Kafka ignores them). In a non-flexible version, bytes
 * that parse exactly as a tagged-field section are the client writing the version as flexible:
 * that kind instead of plain trailing bytes.
 */
export function checkLeftover(findings: ClientFindings, connection: ConnectionInfo, header: RequestHeaderInfo, frame: Buffer, trailing: number): void {
  const api = apiByKey(header.apiKey)!;
  const start = frame.length - trailing;
  if (!isFlexible(api, header.apiVersion)) {
    const tags = taggedSectionTags(frame, start);
    if (tags !== null) {
      const flexibleFrom = api.flexibleFrom >= 0 ? `flexible from v${api.flexibleFrom}` : 'no version of it is flexible';
      const fields = tags.length === 0 ? 'an empty tagged-field section' : `a tagged-field section with tags ${tags.join(', ')}`;
      findings.record(
        'tagged-fields-in-non-flexible-version',
        connection,
        header,
        `${trailing} byte(s) after the body are ${fields}; ${api.name} v${header.apiVersion} is not flexible (${flexibleFrom})`,
      );
      return;
    }
  }
  const shown = frame.toString('hex', start, Math.min(frame.length, start + SHOWN_BYTES));
  findings.record('trailing-bytes', connection, header, `${trailing} byte(s) after the ${api.name} v${header.apiVersion} body: ${shown}${trailing > SHOWN_BYTES ? '…' : ''}`);
}

/** The tags of a tagged-field section filling frame[start..] exactly (KIP-482's layout), else null. */
export function taggedSectionTags(frame: Buffer, start: number): number[] | null {
  const r = new Reader(frame, start);
  try {
    const n = r.uvarint();
    // every field takes at least two bytes (tag and size)
    if (n > r.remaining / 2) return null;
    const tags: number[] = [];
    for (let i = 0; i < n; i++) {
      tags.push(r.uvarint());
      const size = r.uvarint();
      if (size > r.remaining) return null;
      r.pos += size;
    }
    return r.remaining === 0 ? tags : null;
  } catch (e) {
    if (e instanceof DecodeError) return null;
    throw e;
  }
}

/** The request header's client id (header v1+: int16 length at byte 8), when it is there whole. */
function peekClientId(frame: Buffer): string | null {
  if (frame.length < 10) return null;
  const n = frame.readInt16BE(8);
  if (n < 0 || frame.length < 10 + n) return null;
  return frame.toString('utf8', 10, 10 + n);
}
