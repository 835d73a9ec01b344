// A JAAS config as Kafka's `sasl.jaas.config` holds it: `LoginModuleClass flag (name=value)*;`
// (org.apache.kafka.common.security.JaasConfig, which reads it with a StreamTokenizer: values are
// bare words or double-quoted strings; one entry per login module).
import { ConfigError } from '../../config.js';

export interface JaasEntry {
  loginModule: string;
  flag: string;
  options: Map<string, string>;
}

const FLAGS = new Set(['required', 'requisite', 'sufficient', 'optional']);

/** Parses `text`; throws ConfigError with Kafka's reason (never echoing the text: it holds passwords). */
export function parseJaasConfig(text: string, setting: string): JaasEntry[] {
  const tokens: Array<{ kind: 'word' | 'string' | 'sym'; value: string }> = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"') {
      let v = '';
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        v += text[i++];
      }
      if (i >= text.length) throw new ConfigError(`${setting}: unterminated quoted value`);
      i++;
      tokens.push({ kind: 'string', value: v });
    } else if (c === '=' || c === ';') {
      tokens.push({ kind: 'sym', value: c });
      i++;
    } else {
      let v = '';
      while (i < text.length && !/[\s=;"]/.test(text[i]!)) v += text[i++];
      tokens.push({ kind: 'word', value: v });
    }
  }
  const entries: JaasEntry[] = [];
  let t = 0;
  while (t < tokens.length) {
    const module = tokens[t++];
    const flag = tokens[t++];
    if (module?.kind !== 'word' || flag?.kind !== 'word') throw new ConfigError(`${setting}: expected a login module name and a control flag`);
    if (!FLAGS.has(flag.value.toLowerCase())) throw new ConfigError(`${setting}: invalid control flag ${flag.value}`);
    const options = new Map<string, string>();
    for (;;) {
      const k = tokens[t++];
      if (k === undefined) throw new ConfigError(`${setting}: JAAS config entry not terminated by semi-colon`);
      if (k.kind === 'sym' && k.value === ';') break;
      const eq = tokens[t++];
      const v = tokens[t++];
      if (k.kind !== 'word' || eq?.value !== '=' || v === undefined || v.kind === 'sym') throw new ConfigError(`${setting}: option ${k.value} has no value`);
      options.set(k.value, v.value);
    }
    entries.push({ loginModule: module.value, flag: flag.value.toLowerCase(), options });
  }
  if (entries.length === 0) throw new ConfigError(`${setting}: JAAS config has no login module`);
  return entries;
}

/** PlainLoginModule's users: its `user_<name>="<password>"` options. */
export function plainUsers(entries: readonly JaasEntry[]): Map<string, string> {
  const users = new Map<string, string>();
  for (const e of entries) for (const [k, v] of e.options) if (k.startsWith('user_')) users.set(k.slice('user_'.length), v);
  return users;
}
