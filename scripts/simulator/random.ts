/**
 * Seeded randomness for the market simulator: sfc32 (Chris Doty-Humphrey's Small Fast Counting generator,
 * 128-bit state, from PractRand) seeded through splitmix32, a Box-Muller normal, and 32-bit hashes to derive
 * independent streams (one per symbol, one for the market) from a seed.
 *
 * Everything here is integer arithmetic on 32-bit words (`Math.imul`, `| 0`, `>>> 0`): the same seed gives
 * the same numbers on every platform.
 */

const TWO_POW_32 = 4_294_967_296;

/** The murmur3 32-bit finalizer: a bijection on 32-bit words that mixes every input bit into every output bit. */
export function mix32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85eb_ca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2_ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** 32-bit FNV-1a of a string's UTF-16 code units, finalized with `mix32`. */
export function hashString(text: string): number {
  let hash = 0x811c_9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x0100_0193);
  }
  return mix32(hash);
}

/**
 * A 32-bit key for a stream, from its parts (seeds, instants, names). Numbers must be integers; ones beyond
 * 32 bits (millisecond instants) contribute both halves.
 */
export function streamKey(...parts: readonly (string | number)[]): number {
  let key = 0x9e37_79b9;
  for (const part of parts) {
    if (typeof part === 'string') {
      key = mix32(key ^ hashString(part));
    } else {
      key = mix32(key ^ (part >>> 0));
      key = mix32(key ^ (Math.floor(part / TWO_POW_32) >>> 0) ^ 0x68e3_1da4);
    }
  }
  return key;
}

/** A uniform number in [0, 1) from a hash word (for per-symbol constants: level, beta, volatility). */
export function unitOf(hash: number): number {
  return (hash >>> 0) / TWO_POW_32;
}

/** A deterministic stream of random numbers: sfc32. */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  /** Box-Muller makes normals in pairs; the second waits here. */
  private spare = Number.NaN;

  constructor(seed: number) {
    // splitmix32 turns one 32-bit seed into four well-spread state words.
    let state = seed >>> 0;
    const splitmix = (): number => {
      state = (state + 0x9e37_79b9) | 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x21f0_aaad);
      z = Math.imul(z ^ (z >>> 15), 0x735a_2d97);
      return (z ^ (z >>> 15)) >>> 0;
    };
    this.a = splitmix();
    this.b = splitmix();
    this.c = splitmix();
    this.d = splitmix();
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /** The next 32-bit word. */
  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / TWO_POW_32;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const spare = this.spare;
    if (!Number.isNaN(spare)) {
      this.spare = Number.NaN;
      return spare;
    }
    const radius = Math.sqrt(-2 * Math.log(1 - this.next()));
    const angle = 2 * Math.PI * this.next();
    this.spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  }

  /** Exponential with the given mean. */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }
}
