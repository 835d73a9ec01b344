// The JAAS text of `sasl.jaas.config`, parsed as Kafka's JaasConfig does with java.io.StreamTokenizer
// (`loginModule flag key="value" ...;`): words are letters, '_', '$', '-', chars >= 160 and, after the
// first char, digits and '.'; a bare number is no value; quoted values take Java escapes;
// comments are //, /* */ and a lone '/'. Errors carry JaasConfig's messages.
export interface JaasEntry {
  loginModule: string;
  flag: 'REQUIRED' | 'REQUISITE' | 'SUFFICIENT' | 'OPTIONAL';
  options: Map<string, string>;
}

type Tok = { t: 'eof' } | { t: 'word'; s: string } | { t: 'quote'; s: string } | { t: 'num' } | { t: 'char'; c: string };

function isAlpha(ch: string): boolean {
  const c = ch.charCodeAt(0);
  return /[A-Za-z_$-]/.test(ch) || (c >= 160 && c <= 255) || c >= 256;
}
const isDigit = (ch: string): boolean => /[0-9.-]/.test(ch);

function tokenizer(text: string): () => Tok {
  let i = 0;
  const ESC: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
  return () => {
    for (;;) {
      while (i < text.length && text.charCodeAt(i) <= 32) i++;
      if (i >= text.length) return { t: 'eof' };
      const ch = text[i]!;
      if (ch === '-' && !/[0-9.]/.test(text[i + 1] ?? '')) {
        i++;
        return { t: 'char', c: '-' };
      }
      if (/[0-9.-]/.test(ch)) {
        i++;
        while (i < text.length && isDigit(text[i]!)) i++;
        return { t: 'num' };
      }
      if (isAlpha(ch)) {
        const start = i;
        while (i < text.length && (isAlpha(text[i]!) || isDigit(text[i]!))) i++;
        return { t: 'word', s: text.slice(start, i) };
      }
      if (ch === '"' || ch === "'") {
        i++;
        let s = '';
        while (i < text.length && text[i] !== ch && text[i] !== '\n' && text[i] !== '\r') {
          if (text[i] === '\\' && i + 1 < text.length) {
            const n = text[i + 1]!;
            if (/[0-7]/.test(n)) {
              let j = i + 1;
              let oct = '';
              while (j < text.length && oct.length < (n <= '3' ? 3 : 2) && /[0-7]/.test(text[j]!)) oct += text[j++];
              s += String.fromCharCode(parseInt(oct, 8));
              i = j;
            } else {
              s += ESC[n] ?? n;
              i += 2;
            }
          } else s += text[i++];
        }
        if (text[i] === ch) i++;
        return { t: 'quote', s };
      }
      if (ch === '/') {
        if (text[i + 1] === '*') {
          const end = text.indexOf('*/', i + 2);
          i = end < 0 ? text.length : end + 2;
          continue;
        }
        // "//" and a lone '/' (StreamTokenizer's default comment char) both run to the line's end.
        while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
        continue;
      }
      i++;
      return { t: 'char', c: ch };
    }
  };
}

const sval = (t: Tok): string | undefined => (t.t === 'word' || t.t === 'quote' ? t.s : undefined);

/** JaasConfig's entries; throws Error with Kafka's message on a malformed text. */
export function parseJaasConfig(text: string): JaasEntry[] {
  const next = tokenizer(text);
  const entries: JaasEntry[] = [];
  let tok = next();
  while (tok.t !== 'eof') {
    const loginModule = sval(tok) ?? 'null';
    tok = next();
    if (tok.t === 'eof') throw new Error('Login module control flag not specified in JAAS config');
    const f = sval(tok);
    if (f === undefined) throw new Error('Login module control flag is not available in the JAAS config');
    const flag = f.toUpperCase();
    if (flag !== 'REQUIRED' && flag !== 'REQUISITE' && flag !== 'SUFFICIENT' && flag !== 'OPTIONAL') {
      throw new Error(`Invalid login module control flag '${f}' in JAAS config`);
    }
    const options = new Map<string, string>();
    for (tok = next(); tok.t !== 'eof' && !(tok.t === 'char' && tok.c === ';'); tok = next()) {
      const key = sval(tok) ?? 'null';
      const eq = next();
      const v = eq.t === 'char' && eq.c === '=' ? next() : undefined;
      const value = v === undefined ? undefined : sval(v);
      if (value === undefined) throw new Error(`Value not specified for key '${key}' in JAAS config`);
      options.set(key, value);
    }
    if (tok.t !== 'char') throw new Error('JAAS config entry not terminated by semi-colon');
    entries.push({ loginModule, flag, options });
    tok = next();
  }
  if (entries.length === 0) throw new Error('Login module not specified in JAAS config');
  return entries;
}

/** JaasContext.configEntryOption: the first entry of `loginModule` with `key`. */
export function jaasOption(entries: readonly JaasEntry[], key: string, loginModule?: string): string | undefined {
  for (const e of entries) {
    if (loginModule !== undefined && e.loginModule !== loginModule) continue;
    const v = e.options.get(key);
    if (v !== undefined) return v;
  }
  return undefined;
}
