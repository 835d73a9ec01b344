// Inclusive version ranges as Kafka's spec format writes them: "3+", "1-4", "5", "none".

export const MAX_VERSION = 0x7fff;

export class Versions {
  static readonly NONE = new Versions(1, 0);
  static readonly ALL = new Versions(0, MAX_VERSION);

  constructor(
    readonly lo: number,
    readonly hi: number,
  ) {}

  static parse(text: string | undefined, fallback?: Versions): Versions {
    if (text === undefined) {
      if (fallback) return fallback;
      throw new Error('missing version range');
    }
    const t = text.trim();
    if (t === 'none') return Versions.NONE;
    let m = /^(\d+)\+$/.exec(t);
    if (m) return new Versions(Number(m[1]), MAX_VERSION);
    m = /^(\d+)-(\d+)$/.exec(t);
    if (m) {
      const v = new Versions(Number(m[1]), Number(m[2]));
      if (v.isEmpty()) throw new Error(`empty version range "${text}"`);
      return v;
    }
    m = /^(\d+)$/.exec(t);
    if (m) return new Versions(Number(m[1]), Number(m[1]));
    throw new Error(`bad version range "${text}"`);
  }

  isEmpty(): boolean {
    return this.lo > this.hi;
  }

  contains(v: number): boolean {
    return v >= this.lo && v <= this.hi;
  }

  containsAll(o: Versions): boolean {
    return o.isEmpty() || (o.lo >= this.lo && o.hi <= this.hi);
  }

  intersect(o: Versions): Versions {
    const lo = Math.max(this.lo, o.lo);
    const hi = Math.min(this.hi, o.hi);
    return lo > hi ? Versions.NONE : new Versions(lo, hi);
  }

  /** The smallest range covering both. */
  hull(o: Versions): Versions {
    if (this.isEmpty()) return o;
    if (o.isEmpty()) return this;
    return new Versions(Math.min(this.lo, o.lo), Math.max(this.hi, o.hi));
  }

  isOpenEnded(): boolean {
    return !this.isEmpty() && this.hi === MAX_VERSION;
  }

  toString(): string {
    if (this.isEmpty()) return 'none';
    if (this.hi === MAX_VERSION) return `${this.lo}+`;
    return this.lo === this.hi ? `${this.lo}` : `${this.lo}-${this.hi}`;
  }
}
