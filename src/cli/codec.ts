// `kmock codec decode|encode`: whole frames <-> JSON, for protocol work in scripts.
//   kmock codec decode HEX|-                      a request frame (size prefix included)
//   kmock codec decode --response --api-key K --api-version V HEX|-
//   kmock codec encode [--response] < frame.json  prints the frame as hex
import { parseArgs } from 'node:util';
import {
  apiByKey,
  decodeRequestFrame,
  decodeResponseFrame,
  encodeRequest,
  encodeResponse,
  fromJson,
  toJson,
  type ApiTypes,
} from '../codec/index.js';

export interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  readStdin: () => Promise<string>;
}

export class UsageError extends Error {}

const USAGE =
  'usage: kmock codec decode [--response --api-key K --api-version V] HEX|- | kmock codec encode [--response] < frame.json';

export async function codecCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      response: { type: 'boolean', default: false },
      'api-key': { type: 'string' },
      'api-version': { type: 'string' },
    },
  });
  if (sub === 'decode') {
    if (positionals.length !== 1) throw new UsageError(USAGE);
    const hexText = positionals[0] === '-' ? await io.readStdin() : positionals[0];
    const frame = parseHex(hexText);
    let out: unknown;
    if (values.response) {
      const apiKey = intOption(values['api-key'], '--api-key');
      const apiVersion = intOption(values['api-version'], '--api-version');
      const api = apiByKey(apiKey);
      if (!api) throw new Error(`unknown API key ${apiKey}`);
      const d = decodeResponseFrame(frame, apiKey, apiVersion);
      out = {
        header: { apiKey, apiVersion, correlationId: d.correlationId },
        body: toJson(api.response.schema, d.body as object, apiVersion),
      };
    } else {
      const d = decodeRequestFrame(frame);
      const { unknownTaggedFields, ...header } = d.header;
      const headerJson: Record<string, unknown> = header;
      if (unknownTaggedFields) headerJson.unknownTaggedFields = unknownTaggedFields.map((t) => ({ tag: t.tag, data: t.data.toString('hex') }));
      out = { header: headerJson, body: toJson(d.api.request.schema, d.body as object, d.header.apiVersion) };
    }
    io.stdout(JSON.stringify(out) + '\n');
    return 0;
  }
  if (sub === 'encode') {
    if (positionals.length !== 0) throw new UsageError(USAGE);
    let input: { header?: Record<string, unknown>; body?: unknown };
    try {
      input = JSON.parse(await io.readStdin());
    } catch (e) {
      throw new Error(`stdin is not JSON: ${(e as Error).message}`);
    }
    const h = input.header ?? {};
    const apiKey = intOption(h.apiKey, 'header.apiKey');
    const apiVersion = intOption(h.apiVersion, 'header.apiVersion');
    const correlationId = intOption(h.correlationId ?? 0, 'header.correlationId');
    const api = apiByKey(apiKey);
    if (!api) throw new Error(`unknown API key ${apiKey}`);
    const key = apiKey as keyof ApiTypes;
    let frame: Buffer;
    if (values.response) {
      const body = fromJson(api.response.schema, input.body ?? {}, apiVersion);
      frame = encodeResponse(key, apiVersion, correlationId, body as never);
    } else {
      const body = fromJson(api.request.schema, input.body ?? {}, apiVersion);
      const clientId = h.clientId === undefined ? null : (h.clientId as string | null);
      const tags = Array.isArray(h.unknownTaggedFields)
        ? (h.unknownTaggedFields as Array<{ tag: number; data: string }>).map((t) => ({ tag: t.tag, data: parseHex(t.data) }))
        : undefined;
      frame = encodeRequest({ apiKey: key, apiVersion, correlationId, clientId, unknownTaggedFields: tags }, body as never);
    }
    io.stdout(frame.toString('hex') + '\n');
    return 0;
  }
  throw new UsageError(USAGE);
}

function parseHex(text: string): Buffer {
  const t = text.replace(/\s+/g, '');
  if (!/^([0-9a-fA-F]{2})*$/.test(t)) throw new Error('input is not hex');
  return Buffer.from(t, 'hex');
}

function intOption(v: unknown, name: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n)) throw new UsageError(`${name} must be an integer`);
  return n;
}
