// Java's parsing and printing of the values Kafka's configs hold, so that kmock accepts, refuses
// and prints a value exactly as a JVM broker would: String.trim, Integer.parseInt/Long.parseLong
// (digits with an optional sign, range-checked), Double.parseDouble (NaN, Infinity, type suffixes,
// hex floats) and Double.toString (the "0.5", "1.0E7" forms DescribeConfigs shows).
// Follows OpenJDK's java.lang.String, Integer, Long and Double (FloatingDecimal) as ConfigDef
// (clients/.../common/config/ConfigDef.java) and Scala's String.toInt call them.

/** String.trim(): strips every char <= ' ' from both ends. */
export function javaTrim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 0x20) a++;
  while (b > a && s.charCodeAt(b - 1) <= 0x20) b--;
  return s.slice(a, b);
}

/**
 * Integer.parseInt / Short.parseShort / Long.parseLong on already trimmed text: digits with one
 * optional sign, within [min, max]; undefined where Java throws NumberFormatException.
 */
export function parseJavaInteger(s: string, min: bigint, max: bigint): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < min || n > max ? undefined : n;
}

const JAVA_DOUBLE =
  /^[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[fFdD]?)$/;

/** Double.parseDouble (which trims, accepts NaN/Infinity, type suffixes and hex floats). */
export function parseJavaDouble(text: string): number | undefined {
  const s = javaTrim(text);
  if (!JAVA_DOUBLE.test(s)) return undefined;
  const negative = s.startsWith('-');
  const body = s.replace(/^[+-]/, '').replace(/[fFdD]$/, '');
  let v: number;
  if (body === 'NaN') return NaN;
  if (body === 'Infinity') v = Infinity;
  else if (/^0[xX]/.test(body)) {
    const [mant, exp] = body.slice(2).split(/[pP]/);
    const [int, frac = ''] = mant.split('.');
    v = parseInt((int || '0') + frac, 16) * 2 ** (Number(exp) - 4 * frac.length);
  } else v = Number(body);
  return negative ? -v : v;
}

/** Double.toString. */
export function javaDoubleToString(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return 'Infinity';
  if (d === -Infinity) return '-Infinity';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(d);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(d);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mant, exp] = d.toExponential().split('e');
  return `${mant.includes('.') ? mant : `${mant}.0`}E${exp.replace('+', '')}`;
}

/** Integer.parseInt, as Scala's String.toInt does it. */
export function parseJavaInt(text: string): number | undefined {
  const n = parseJavaInteger(text, -2147483648n, 2147483647n);
  return n === undefined ? undefined : Number(n);
}
