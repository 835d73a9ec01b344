// The bits of Java's text handling that Kafka's text files rely on, so kmock reads them as Kafka's
// readers do and writes them as Kafka's writers do:
// - BufferedReader.readLine's line splitting (CheckpointFile, PartitionMetadataFile);
// - Integer.parseInt / Long.parseLong (ASCII digits only here; Java also takes other Unicode
//   digits, which no Kafka writer produces);
// - java.util.Properties load/store (meta.properties: PropertiesUtils.readPropertiesFile /
//   writePropertiesFile), with Date.toString's header line.

/**
 * The lines BufferedReader.readLine returns: split at "\n", "\r" or "\r\n"; a last line without a
 * terminator is still a line; an empty text has no lines. Callers number the lines from 1.
 */
export function javaLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r\n|\r|\n/);
  // A terminator at the very end does not start another line.
  if (/[\r\n]$/.test(text)) lines.pop();
  return lines;
}

/** Integer.parseInt(s): optional sign, ASCII digits, inside int32. Null where Java throws NumberFormatException. */
export function parseJavaInt(s: string): number | null {
  if (!/^[+-]?[0-9]+$/.test(s)) return null;
  const v = Number(s);
  return v >= -0x80000000 && v <= 0x7fffffff ? v : null;
}

/**
 * Long.parseLong(s) as a number: null where Java throws, and also for a long outside the
 * safe-integer range (kmock keeps offsets as numbers); `tooBig` tells the two apart.
 */
export function parseJavaLong(s: string): { value: number } | { value: null; tooBig: boolean } {
  if (!/^[+-]?[0-9]+$/.test(s)) return { value: null, tooBig: false };
  const b = BigInt(s);
  if (b < -(2n ** 63n) || b >= 2n ** 63n) return { value: null, tooBig: false };
  const v = Number(b);
  return Number.isSafeInteger(v) ? { value: v } : { value: null, tooBig: true };
}

// ---- java.util.Properties ----------------------------------------------------------------------

export type PropertiesParse = { ok: true; props: Map<string, string> } | { ok: false; line: number; reason: string };

/**
 * Properties.load: natural lines (any terminator), leading blanks (space, tab, form feed) skipped,
 * '#' or '!' comment lines, a line ending in an odd number of backslashes continued on the next
 * (whose leading blanks are skipped), the key ending at the first unescaped '=', ':' or blank,
 * then blanks, at most one '=' or ':', blanks, and the value; escapes \t \n \r \f \uXXXX and
 * backslash-anything. A later key replaces an earlier one. Properties.load(InputStream) reads
 * ISO-8859-1, which is how PropertiesUtils reads meta.properties: pass `buf.toString('latin1')`.
 * Fails only on a malformed \u escape (Java's IllegalArgumentException).
 */
export function parseJavaProperties(text: string): PropertiesParse {
  const props = new Map<string, string>();
  const natural = text === '' ? [] : text.split(/\r\n|\r|\n/);
  let i = 0;
  while (i < natural.length) {
    const startLine = i + 1;
    let line = stripLeadingBlanks(natural[i]);
    i++;
    if (line === '' || line[0] === '#' || line[0] === '!') continue;
    // Join continuation lines.
    while (endsWithOddBackslashes(line) && i <= natural.length) {
      line = line.slice(0, -1);
      if (i === natural.length) break;
      line += stripLeadingBlanks(natural[i]);
      i++;
    }
    const kv = splitKeyValue(line);
    const key = unescape(kv.key);
    const value = unescape(kv.value);
    if (key === null || value === null) return { ok: false, line: startLine, reason: 'malformed \\uxxxx escape' };
    props.set(key, value);
  }
  return { ok: true, props };
}

function isBlank(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\f';
}

function stripLeadingBlanks(s: string): string {
  let k = 0;
  while (k < s.length && isBlank(s[k])) k++;
  return s.slice(k);
}

function endsWithOddBackslashes(s: string): boolean {
  let n = 0;
  for (let k = s.length - 1; k >= 0 && s[k] === '\\'; k--) n++;
  return n % 2 === 1;
}

function splitKeyValue(line: string): { key: string; value: string } {
  let k = 0;
  let escaped = false;
  for (; k < line.length; k++) {
    const c = line[k];
    if (escaped) {
      escaped = false;
      continue;
    }
    if (c === '\\') escaped = true;
    else if (c === '=' || c === ':' || isBlank(c)) break;
  }
  const key = line.slice(0, k);
  let v = k;
  while (v < line.length && isBlank(line[v])) v++;
  if (v < line.length && (line[v] === '=' || line[v] === ':')) {
    v++;
    while (v < line.length && isBlank(line[v])) v++;
  }
  return { key, value: line.slice(v) };
}

function unescape(s: string): string | null {
  if (!s.includes('\\')) return s;
  let out = '';
  for (let k = 0; k < s.length; k++) {
    const c = s[k];
    if (c !== '\\') {
      out += c;
      continue;
    }
    k++;
    if (k >= s.length) break;
    const e = s[k];
    if (e === 'u') {
      const hex = s.slice(k + 1, k + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) return null;
      out += String.fromCharCode(parseInt(hex, 16));
      k += 4;
    } else if (e === 't') out += '\t';
    else if (e === 'n') out += '\n';
    else if (e === 'r') out += '\r';
    else if (e === 'f') out += '\f';
    else out += e;
  }
  return out;
}

/**
 * Properties.store(writer, comments): the comment line ("#" + comments), "#" + Date.toString(),
 * then `key=value` lines, keys and values escaped as saveConvert does (backslash, tab, newline,
 * carriage return, form feed; '=', ':', '#', '!' in keys and values; a leading space of a value
 * and every space of a key). A Writer is given, so characters above 0x7e are written as they are
 * (store(OutputStream) would use \u escapes). Lines end with "\n" (Linux's line.separator).
 */
export function storeJavaProperties(entries: ReadonlyArray<readonly [string, string]>, comments: string, date: Date): string {
  let out = `#${comments}\n#${javaDateString(date)}\n`;
  for (const [k, v] of entries) out += `${saveConvert(k, true)}=${saveConvert(v, false)}\n`;
  return out;
}

function saveConvert(s: string, isKey: boolean): string {
  let out = '';
  for (let k = 0; k < s.length; k++) {
    const c = s[k];
    switch (c) {
      case ' ':
        out += k === 0 || isKey ? '\\ ' : ' ';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\f':
        out += '\\f';
        break;
      case '=':
      case ':':
      case '#':
      case '!':
      case '\\':
        out += `\\${c}`;
        break;
      default:
        out += c;
    }
  }
  return out;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** java.util.Date.toString() in UTC: "EEE MMM dd HH:mm:ss zzz yyyy", e.g. "Wed Dec 02 05:51:26 UTC 2026". */
export function javaDateString(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return (
    `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${p(d.getUTCDate())} ` +
    `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`
  );
}
