// `kmock admin ...`: the control plane from a shell. Each command is one request to the admin HTTP
// API of a running kmock (`kmock start --admin-port P`); the answer is printed as JSON. Errors print
// one line on stderr and exit 1 (2 for usage errors).
import { parseArgs } from 'node:util';
import { UsageError, type Io } from './codec.js';

/** Where `kmock admin` looks without --url: $KMOCK_ADMIN_URL, else this. */
export const DEFAULT_ADMIN_URL = 'http://127.0.0.1:9093';

export const ADMIN_USAGE = `usage: kmock admin [--url URL] [--token TOKEN] COMMAND [ARGS]
  URL defaults to $KMOCK_ADMIN_URL, else ${DEFAULT_ADMIN_URL} (kmock start --admin-port 9093)
  TOKEN defaults to $KMOCK_ADMIN_TOKEN (needed when the admin API is not on loopback)

read
  groups                               groups with state, generation, leader, member count
  group ID                             one group: members (decoded subscription and assignment),
                                       offline static members, policies, committed offsets and lag
  topics                               topics, partitions, log start/end offsets
  connections                          open client connections
  policies [--group ID]                broker-wide policies (and each group's), or one group's
  faults                               injected errors still queued, latencies, errors answered
  transactions [list]                  transactional ids: producer id and epoch, state, partitions,
                                       timeout, start, age of the running transaction
  transactions describe ID             one transactional id
act
  policies set [--group ID] POLICY...  change policies, in the text form of kmock start --set
                                       policies=...: NAME (on), NAME=on|off, registration-timeout=15m,
                                       expansion-timeout=30s, all, none
  policies clear --group ID            drop the group's own policies (broker-wide ones apply)
  rebalance ID [--reason R]            force a rebalance
  remove ID (--instance X | --member Y)... [--reason R]
                                       remove members by group.instance.id or member id
  remove ID --all [--reason R]         remove every member
  static ID [--registration-timeout-ms N] [--expansion-timeout-ms N]
                                       the draft's enableStaticMembership
  dynamic ID                           the draft's enableDynamicMembership
  force-static-rebalance ID            the draft's forceStaticRebalance
  inject-errors API_KEY CODE [COUNT]   answer the next COUNT (1) requests of the API with the error
                                       (API by key or name: 0, Produce; error by code or name: 6,
                                       NOT_LEADER_OR_FOLLOWER)
  latency API_KEY MS                   add MS of latency to every request of the API (0 removes it)
  clear-faults                         remove all injected errors and latencies
  drop-connections [--client-id X]     close the connections of client id X (default: all)
  clock                                the broker's clock: mode, time, pending timers
  clock advance MS                     move the clock MS forward, firing what falls due in order
  clock run-until-idle                 fire every pending timer but housekeeping, in order
  clock set MODE                       system, manual, or a speed such as 10x
  strict-clients [on|off|reset]        strict-clients mode and its findings (counts, first
                                       examples); on/off switch it, reset forgets the findings
watch
  transactions events [--transactional-id ID] [--type T]... [--count N] [--timeout-ms N]
                                       transaction events (txn-state-changed, txn-timed-out,
                                       txn-id-expired), one JSON line each
  strict-clients events [--type KIND]... [--count N] [--timeout-ms N]
                                       strict-clients findings as they are made, one JSON line each
  events [--group ID] [--type T]... [--count N] [--timeout-ms N]
                                       group events, one JSON line each (until N events, or forever)`;

type FetchFn = typeof fetch;

/** An answer the admin API refused (4xx/5xx) or could not give: exit code 1. */
class AdminError extends Error {}

export async function adminCommand(argv: string[], io: Io, fetchImpl: FetchFn = fetch, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      group: { type: 'string' },
      reason: { type: 'string' },
      instance: { type: 'string', multiple: true },
      member: { type: 'string', multiple: true },
      all: { type: 'boolean' },
      'registration-timeout-ms': { type: 'string' },
      'expansion-timeout-ms': { type: 'string' },
      'client-id': { type: 'string' },
      'transactional-id': { type: 'string' },
      type: { type: 'string', multiple: true },
      count: { type: 'string' },
      'timeout-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [cmd, ...args] = positionals;
  if (values.help || cmd === undefined || cmd === 'help') {
    io.stdout(ADMIN_USAGE + '\n');
    return cmd === undefined && !values.help ? 2 : 0;
  }
  const base = parseBaseUrl(values.url ?? env.KMOCK_ADMIN_URL ?? DEFAULT_ADMIN_URL);
  const token = values.token ?? env.KMOCK_ADMIN_TOKEN;
  if (token !== undefined && (token === '' || /\s/.test(token))) throw new UsageError('--token (or $KMOCK_ADMIN_TOKEN) must be non-empty, without spaces');
  const api = new AdminClient(base, fetchImpl, token);
  const allowed = (...flags: string[]): void => {
    for (const [k, v] of Object.entries(values)) {
      if (v !== undefined && k !== 'url' && k !== 'token' && !flags.includes(k)) throw new UsageError(`${cmd} does not take --${k}`);
    }
  };
  const arity = (min: number, max: number, shape: string): void => {
    if (args.length < min || args.length > max) throw new UsageError(`usage: kmock admin ${cmd} ${shape}`);
  };
  const g = (id: string): string => `/groups/${encodeURIComponent(id)}`;
  const print = (v: unknown): number => {
    io.stdout(JSON.stringify(v, null, 2) + '\n');
    return 0;
  };

  try {
    switch (cmd) {
      case 'groups':
        allowed();
        arity(0, 0, '');
        return print(await api.call('GET', '/groups'));
      case 'group':
        allowed();
        arity(1, 1, 'ID');
        return print(await api.call('GET', g(args[0]!)));
      case 'topics':
        allowed();
        arity(0, 0, '');
        return print(await api.call('GET', '/topics'));
      case 'connections':
        allowed();
        arity(0, 0, '');
        return print(await api.call('GET', '/connections'));
      case 'faults':
        allowed();
        arity(0, 0, '');
        return print(await api.call('GET', '/faults'));
      case 'policies':
        return print(await policies(api, args, values.group, allowed, g));
      case 'rebalance':
        allowed('reason');
        arity(1, 1, 'ID [--reason R]');
        return print(await api.call('POST', `${g(args[0]!)}/rebalance`, values.reason === undefined ? {} : { reason: values.reason }));
      case 'remove': {
        allowed('instance', 'member', 'reason', 'all');
        arity(1, 1, 'ID (--instance X | --member Y)... [--reason R]');
        const body: Record<string, unknown> = {};
        if (values.instance) body.groupInstanceIds = values.instance;
        if (values.member) body.memberIds = values.member;
        if (values.all) body.all = true;
        if (!values.instance && !values.member && !values.all) throw new UsageError('remove needs --instance X, --member Y or --all');
        if (values.all && (values.instance || values.member)) throw new UsageError('remove takes --all or ids, not both');
        if (values.reason !== undefined) body.reason = values.reason;
        return print(await api.call('POST', `${g(args[0]!)}/members/remove`, body));
      }
      case 'static': {
        allowed('registration-timeout-ms', 'expansion-timeout-ms');
        arity(1, 1, 'ID [--registration-timeout-ms N] [--expansion-timeout-ms N]');
        const body: Record<string, unknown> = {};
        if (values['registration-timeout-ms'] !== undefined) body.registrationTimeoutMs = intArg(values['registration-timeout-ms'], '--registration-timeout-ms');
        if (values['expansion-timeout-ms'] !== undefined) body.expansionTimeoutMs = intArg(values['expansion-timeout-ms'], '--expansion-timeout-ms');
        return print(await api.call('POST', `${g(args[0]!)}/static-membership`, body));
      }
      case 'dynamic':
        allowed();
        arity(1, 1, 'ID');
        return print(await api.call('POST', `${g(args[0]!)}/dynamic-membership`, {}));
      case 'force-static-rebalance':
        allowed();
        arity(1, 1, 'ID');
        return print(await api.call('POST', `${g(args[0]!)}/force-static-rebalance`, {}));
      case 'inject-errors': {
        allowed();
        arity(2, 3, 'API_KEY CODE [COUNT]');
        const body: Record<string, unknown> = { apiKey: args[0], errorCode: args[1] };
        if (args[2] !== undefined) body.count = intArg(args[2], 'COUNT');
        return print(await api.call('POST', '/faults/errors', body));
      }
      case 'latency':
        allowed();
        arity(2, 2, 'API_KEY MS');
        return print(await api.call('POST', '/faults/latency', { apiKey: args[0], ms: intArg(args[1]!, 'MS') }));
      case 'clear-faults':
        allowed();
        arity(0, 0, '');
        return print(await api.call('DELETE', '/faults'));
      case 'drop-connections':
        allowed('client-id');
        arity(0, 0, '[--client-id X]');
        return print(await api.call('POST', '/connections/drop', values['client-id'] === undefined ? {} : { clientId: values['client-id'] }));
      case 'clock':
        allowed();
        return print(await clock(api, args));
      case 'strict-clients': {
        const sub = args[0];
        if (sub === 'events') {
          // Findings as they are made, one JSON line each (--type filters by kind).
          allowed('type', 'count', 'timeout-ms');
          arity(1, 1, 'events [--type KIND]... [--count N] [--timeout-ms N]');
          const count = values.count === undefined ? undefined : intArg(values.count, '--count', 1);
          const timeoutMs = values['timeout-ms'] === undefined ? undefined : intArg(values['timeout-ms'], '--timeout-ms', 1);
          return await api.events(io, { path: '/strict-clients/events', typeField: 'kind', types: values.type, count, timeoutMs });
        }
        allowed();
        arity(0, 1, '[on|off|reset|events]');
        if (sub === undefined) return print(await api.call('GET', '/strict-clients'));
        if (sub === 'on' || sub === 'off') return print(await api.call('PUT', '/strict-clients', { enabled: sub === 'on' }));
        if (sub === 'reset') return print(await api.call('POST', '/strict-clients/reset', {}));
        throw new UsageError(`unknown strict-clients command "${sub}" (on, off, reset, events, or none to show)`);
      }
      case 'transactions': {
        const [sub, ...rest] = args;
        if (sub === 'events') {
          allowed('transactional-id', 'type', 'count', 'timeout-ms');
          arity(1, 1, 'events [--transactional-id ID] [--type T]... [--count N] [--timeout-ms N]');
          const count = values.count === undefined ? undefined : intArg(values.count, '--count', 1);
          const timeoutMs = values['timeout-ms'] === undefined ? undefined : intArg(values['timeout-ms'], '--timeout-ms', 1);
          const id = values['transactional-id'];
          const path = `/transactions/events${id === undefined ? '' : `?transactionalId=${encodeURIComponent(id)}`}`;
          return await api.events(io, { path, typeField: 'type', types: values.type, count, timeoutMs });
        }
        allowed();
        if ((sub === undefined || sub === 'list') && rest.length === 0) return print(await api.call('GET', '/transactions'));
        if (sub === 'describe' && rest.length === 1) return print(await api.call('GET', txnPath(rest[0]!)));
        if (sub === undefined || sub === 'list' || sub === 'describe') throw new UsageError('usage: kmock admin transactions [list | describe ID | events ...]');
        throw new UsageError(`unknown transactions command "${sub}" (list, describe, events, or none to list)`);
      }
      case 'events': {
        allowed('group', 'type', 'count', 'timeout-ms');
        arity(0, 0, '[--group ID] [--type T]... [--count N] [--timeout-ms N]');
        const count = values.count === undefined ? undefined : intArg(values.count, '--count', 1);
        const timeoutMs = values['timeout-ms'] === undefined ? undefined : intArg(values['timeout-ms'], '--timeout-ms', 1);
        const path = `/events${values.group === undefined ? '' : `?group=${encodeURIComponent(values.group)}`}`;
        return await api.events(io, { path, typeField: 'type', types: values.type, count, timeoutMs });
      }
      default:
        throw new UsageError(`unknown admin command "${cmd}" (kmock admin --help lists them)`);
    }
  } catch (e) {
    if (e instanceof AdminError) {
      io.stderr(`kmock: ${e.message.split('\n')[0]}\n`);
      return 1;
    }
    throw e;
  }
}

async function clock(api: AdminClient, args: string[]): Promise<unknown> {
  const [sub, ...rest] = args;
  const usage = 'usage: kmock admin clock [advance MS | run-until-idle | set MODE]';
  if (sub === undefined) return api.call('GET', '/clock');
  if (sub === 'advance' && rest.length === 1) return api.call('POST', '/clock/advance', { ms: intArg(rest[0]!, 'MS') });
  if (sub === 'run-until-idle' && rest.length === 0) return api.call('POST', '/clock/run-until-idle', {});
  if (sub === 'set' && rest.length === 1) return api.call('PUT', '/clock', { mode: rest[0] });
  throw new UsageError(usage);
}

async function policies(
  api: AdminClient,
  args: string[],
  group: string | undefined,
  allowed: (...flags: string[]) => void,
  g: (id: string) => string,
): Promise<unknown> {
  allowed('group');
  const [sub, ...settings] = args;
  if (sub === undefined) return api.call('GET', group === undefined ? '/policies' : `${g(group)}/policies`);
  if (sub === 'set') {
    if (settings.length === 0) throw new UsageError('usage: kmock admin policies set [--group ID] POLICY... (e.g. registration-timeout=15m kip423-join-reasons)');
    // The text form of `kmock start --set policies=...`, parsed (and checked) by the broker.
    return api.call('PUT', group === undefined ? '/policies' : `${g(group)}/policies`, settings.join(','));
  }
  if (sub === 'clear') {
    if (group === undefined || settings.length > 0) throw new UsageError('usage: kmock admin policies clear --group ID');
    return api.call('DELETE', `${g(group)}/policies`);
  }
  throw new UsageError(`unknown policies command "${sub}" (set, clear, or none to show)`);
}

/** `/transactions/ID`; the id "events" percent-encoded, as `/transactions/events` is the event stream. */
function txnPath(id: string): string {
  return `/transactions/${id === 'events' ? '%65vents' : encodeURIComponent(id)}`;
}

function intArg(text: string, what: string, min = 0): number {
  if (!/^\d+$/.test(text) || Number(text) < min || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`${what} must be an integer >= ${min}, got "${text}"`);
  }
  return Number(text);
}

function parseBaseUrl(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new UsageError(`--url must be an http URL, got "${text}"`);
  }
  if (u.protocol !== 'http:') throw new UsageError(`--url must be an http URL, got "${text}"`);
  return u.origin;
}

class AdminClient {
  constructor(
    private readonly base: string,
    private readonly fetchImpl: FetchFn,
    private readonly token?: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await this.send(path, {
      method,
      // Changes must be JSON (the API answers 415 otherwise); a body-less DELETE sends none.
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      throw new AdminError(`admin API answered HTTP ${res.status} with non-JSON: ${text.slice(0, 200)}`);
    }
    if (!res.ok) {
      const msg = typeof parsed === 'object' && parsed !== null && typeof (parsed as { error?: unknown }).error === 'string'
        ? (parsed as { error: string }).error
        : text.slice(0, 200);
      throw new AdminError(`${msg} (HTTP ${res.status})`);
    }
    return parsed;
  }

  /** Prints each event as one JSON line; stops after `count` matching events or `timeoutMs`. */
  /** Prints the server-sent events of `path` (group events, or strict-clients findings) as JSON lines. */
  async events(
    io: Io,
    o: { path: string; typeField: 'type' | 'kind'; types?: string[]; count?: number; timeoutMs?: number },
  ): Promise<number> {
    const abort = new AbortController();
    let timedOut = false;
    const timer = o.timeoutMs === undefined ? undefined : setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, o.timeoutMs);
    let seen = 0;
    try {
      const res = await this.send(o.path, {
        signal: abort.signal,
        headers: { accept: 'text/event-stream' },
      });
      if (!res.ok || res.body === null) {
        const text = await res.text();
        let msg = text.slice(0, 200);
        try {
          msg = (JSON.parse(text) as { error: string }).error ?? msg;
        } catch {
          // not JSON
        }
        throw new AdminError(`${msg} (HTTP ${res.status})`);
      }
      const decoder = new TextDecoder();
      let buf = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buf += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, end);
            buf = buf.slice(end + 2);
            const data = block
              .split('\n')
              .filter((l) => l.startsWith('data:'))
              .map((l) => l.slice(5).replace(/^ /, ''))
              .join('\n');
            if (data === '') continue;
            const event = JSON.parse(data) as Record<string, unknown>;
            if (o.types && !o.types.includes(String(event[o.typeField]))) continue;
            io.stdout(JSON.stringify(event) + '\n');
            if (o.count !== undefined && ++seen >= o.count) {
              abort.abort();
              break;
            }
          }
          if (abort.signal.aborted) break;
        }
      } catch (e) {
        if (!abort.signal.aborted) throw e;
      }
      if (o.count !== undefined && seen >= o.count) return 0;
      if (timedOut && o.count !== undefined) throw new AdminError(`timed out after ${o.timeoutMs} ms with ${seen} of ${o.count} events`);
      if (!timedOut) throw new AdminError('the admin API closed the event stream');
      return 0;
    } catch (e) {
      if (timedOut && !(e instanceof AdminError)) {
        if (o.count !== undefined) throw new AdminError(`timed out after ${o.timeoutMs} ms with ${seen} of ${o.count} events`);
        return 0;
      }
      throw e;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  private async send(path: string, init: RequestInit): Promise<Response> {
    try {
      const headers = new Headers(init.headers);
      if (this.token !== undefined) headers.set('authorization', `Bearer ${this.token}`);
      return await this.fetchImpl(this.base + path, { ...init, headers });
    } catch (e) {
      if (init.signal?.aborted) throw e;
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new AdminError(`cannot reach the admin API at ${this.base}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
    }
  }
}
