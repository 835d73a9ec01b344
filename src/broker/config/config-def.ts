// ConfigDef's view of a config value: its type, how text is parsed into it (ConfigDef.parseType),
// how it is printed back (ConfigDef.convertToString, and Object.toString in error messages), the
// ConfigException text for a bad value, and the generic validators (ConfigDef.Range, ValidString,
// ValidList). Kafka-specific validators live beside the configs that use them (topic-configs.ts).
// Follows clients/src/main/java/org/apache/kafka/common/config/ConfigDef.java (Kafka 3.9).
import { javaDoubleToString, javaTrim, parseJavaDouble, parseJavaInteger } from './java-values.js';

/** ConfigDef.Type. */
export type ConfigType = 'BOOLEAN' | 'STRING' | 'INT' | 'SHORT' | 'LONG' | 'DOUBLE' | 'LIST' | 'CLASS' | 'PASSWORD';

/** A parsed config value: INT/SHORT and DOUBLE as number, LONG as bigint, LIST as string[]. */
export type ConfigValue = boolean | string | number | bigint | string[];

/** Object.toString of a parsed value, as Kafka prints it in messages. */
function javaToString(v: ConfigValue, type: ConfigType): string {
  if (Array.isArray(v)) return `[${v.join(', ')}]`;
  if (type === 'DOUBLE') return javaDoubleToString(v as number);
  return String(v);
}

/** ConfigDef.convertToString: the text form DescribeConfigs reports. */
export function convertToString(v: ConfigValue, type: ConfigType): string {
  if (Array.isArray(v)) return v.join(',');
  if (type === 'DOUBLE') return javaDoubleToString(v as number);
  return String(v);
}

/** parseType's answer: the value, or the ConfigException message. */
export type Parsed = { value: ConfigValue } | { error: string };

/** ConfigException(name, value, message)'s text. */
export function configException(name: string, value: string, message: string): string {
  return `Invalid value ${value} for configuration ${name}: ${message}`;
}

/** ConfigDef.parseType for a value given as text. */
export function parseType(name: string, raw: string, type: ConfigType): Parsed {
  const trimmed = javaTrim(raw);
  const notANumber = (): Parsed => ({ error: configException(name, raw, `Not a number of type ${type}`) });
  switch (type) {
    case 'BOOLEAN': {
      const l = trimmed.toLowerCase();
      if (l === 'true') return { value: true };
      if (l === 'false') return { value: false };
      return { error: configException(name, raw, 'Expected value to be either true or false') };
    }
    case 'STRING':
    case 'PASSWORD':
    case 'CLASS':
      return { value: trimmed };
    case 'INT': {
      const n = parseJavaInteger(trimmed, -2147483648n, 2147483647n);
      return n === undefined ? notANumber() : { value: Number(n) };
    }
    case 'SHORT': {
      const n = parseJavaInteger(trimmed, -32768n, 32767n);
      return n === undefined ? notANumber() : { value: Number(n) };
    }
    case 'LONG': {
      const n = parseJavaInteger(trimmed, -9223372036854775808n, 9223372036854775807n);
      return n === undefined ? notANumber() : { value: n };
    }
    case 'DOUBLE': {
      const d = parseJavaDouble(trimmed);
      return d === undefined ? notANumber() : { value: d };
    }
    case 'LIST':
      // Arrays.asList(COMMA_WITH_WHITESPACE.split(trimmed, -1)): trailing empty items are kept.
      return { value: trimmed === '' ? [] : trimmed.split(/\s*,\s*/) };
  }
}

// ---- validators (ConfigDef.Range, ValidString, ValidList) ----------------------------------------

/** Returns the ConfigException message, or null when the value is valid. */
export type Validator = (name: string, value: ConfigValue, type: ConfigType) => string | null;

/** ConfigDef.Range.atLeast. */
export function atLeast(min: number): Validator {
  return (name, value, type) =>
    Number(value) < min ? configException(name, javaToString(value, type), `Value must be at least ${min}`) : null;
}

/** ConfigDef.Range.between. */
export function between(min: number, max: number): Validator {
  return (name, value, type) => {
    const n = Number(value);
    if (n < min) return configException(name, javaToString(value, type), `Value must be at least ${min}`);
    if (n > max) return configException(name, javaToString(value, type), `Value must be no more than ${max}`);
    return null;
  };
}

/** ConfigDef.ValidString.in. */
export function validString(allowed: string[]): Validator {
  return (name, value) =>
    allowed.includes(value as string) ? null : configException(name, value as string, `String must be one of: ${allowed.join(', ')}`);
}

/** ConfigDef.ValidList.in: every item one of `allowed`. */
export function validList(allowed: string[]): Validator {
  const one = validString(allowed);
  return (name, value, type) => {
    for (const item of value as string[]) {
      const e = one(name, item, type);
      if (e) return e;
    }
    return null;
  };
}
