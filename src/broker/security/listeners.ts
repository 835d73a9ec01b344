// The broker's listeners from Kafka's settings: `listeners`, `advertised.listeners` and
// `listener.security.protocol.map`, parsed as SocketServerConfigs.listenerListToEndPoints and
// validated as CoreUtils.listenerListToEndPoints (one name per listener, distinct ports but 0);
// without `listeners`, kmock's one listener on host:port (PLAINTEXT, or SSL with `--tls`).
import { ConfigError, type BrokerConfig } from '../config.js';
import { SECURITY_PROTOCOLS, type ListenerSpec, type SecurityProtocol } from './types.js';

/** SocketServerConfigs.URI_PARSE_REGEXP */
const URI_PARSE = /^(.*):\/\/\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)$/;

/** Csv.parseCsvList: split on commas, trimmed, empty entries dropped. */
function csv(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** listener.security.protocol.map: NAME:PROTOCOL entries (KafkaConfig.getMap, names upper-cased). */
export function parseProtocolMap(text: string): Map<string, SecurityProtocol> {
  const map = new Map<string, SecurityProtocol>();
  for (const entry of csv(text)) {
    const i = entry.lastIndexOf(':');
    if (i <= 0) throw new ConfigError(`listener.security.protocol.map: "${entry}" is not NAME:PROTOCOL`);
    const name = entry.slice(0, i).trim().toUpperCase();
    const protocol = entry.slice(i + 1).trim().toUpperCase();
    if (!SECURITY_PROTOCOLS.includes(protocol as SecurityProtocol)) {
      throw new ConfigError(`listener.security.protocol.map: no enum constant for security protocol "${protocol}" (one of ${SECURITY_PROTOCOLS.join(', ')})`);
    }
    if (map.has(name)) throw new ConfigError(`listener.security.protocol.map: listener ${name} appears twice`);
    map.set(name, protocol as SecurityProtocol);
  }
  return map;
}

interface EndPoint {
  name: string;
  protocol: SecurityProtocol;
  host: string;
  port: number;
}

function endPoints(setting: string, text: string, protocols: Map<string, SecurityProtocol>): EndPoint[] {
  const out: EndPoint[] = [];
  for (const entry of csv(text)) {
    const m = URI_PARSE.exec(entry);
    if (m === null) throw new ConfigError(`${setting}: unable to parse ${entry} to a broker endpoint`);
    const name = m[1].toUpperCase();
    const protocol = protocols.get(name);
    if (protocol === undefined) throw new ConfigError(`${setting}: no security protocol defined for listener ${name}`);
    const port = Number(m[3]);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`${setting}: bad port in ${entry}`);
    out.push({ name, protocol, host: m[2], port });
  }
  if (new Set(out.map((e) => e.name)).size !== out.length) throw new ConfigError(`Each listener must have a different name, ${setting}: ${text}`);
  return out;
}

/**
 * The listeners kmock serves, in `listeners` order: the first is where `bootstrapServers` points.
 * Throws ConfigError with Kafka's reason for a setting Kafka would refuse.
 */
export function resolveListeners(config: BrokerConfig): ListenerSpec[] {
  if (config.listeners === null) {
    if (config.advertisedListeners !== null) throw new ConfigError('advertised.listeners needs listeners to be set too');
    const protocol: SecurityProtocol = config.tls ? 'SSL' : 'PLAINTEXT';
    return [{ name: protocol, protocol, host: config.host, port: config.port, advertisedHost: config.advertisedHost ?? config.host, advertisedPort: config.advertisedPort }];
  }
  const protocols = parseProtocolMap(config.listenerSecurityProtocolMap);
  const bound = endPoints('listeners', config.listeners, protocols);
  if (bound.length === 0) throw new ConfigError('listeners: no listener');
  const ports = bound.filter((e) => e.port !== 0).map((e) => e.port);
  if (new Set(ports).size !== ports.length) throw new ConfigError(`Each listener must have a different port, listeners: ${config.listeners}`);
  const advertised = config.advertisedListeners === null ? bound : endPoints('advertised.listeners', config.advertisedListeners, protocols);
  for (const a of advertised) {
    if (a.host === '0.0.0.0' || a.host === '::') throw new ConfigError(`advertised.listeners cannot use the nonroutable meta-address ${a.host}. Use a routable IP address.`);
    if (!bound.some((b) => b.name === a.name)) throw new ConfigError(`advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. Found ${advertised.map((e) => e.name).join(',')}. The valid options based on the current configuration are ${bound.map((e) => e.name).join(',')}`);
  }
  return bound.map((b) => {
    const a = advertised.find((e) => e.name === b.name);
    // Not advertised: Kafka still binds it (it is simply not in Metadata); kmock advertises the bound address.
    const advertisedHost = a !== undefined && a.host !== '' ? a.host : b.host === '' || b.host === '0.0.0.0' || b.host === '::' ? config.advertisedHost ?? '127.0.0.1' : b.host;
    const advertisedPort = a !== undefined && config.advertisedListeners !== null ? a.port : undefined;
    return { name: b.name, protocol: b.protocol, host: b.host, port: b.port, advertisedHost, advertisedPort };
  });
}
