// A small seeded PRNG (xoshiro128**), so that a (seed, case index) pair
// always generates the same case on every machine and Node version.
'use strict';

// Mixes a string into 32-bit state words (cyrb128).
function hashToWords(text) {
  let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  return [(h1 ^ h2 ^ h3 ^ h4) >>> 0, (h2 ^ h1) >>> 0, (h3 ^ h1) >>> 0, (h4 ^ h1) >>> 0];
}

class Rng {
  constructor(seedText) {
    this.s = hashToWords(String(seedText));
    if (this.s.every((w) => w === 0)) this.s[0] = 1;
  }

  // A uniform 32-bit unsigned integer.
  next32() {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1], 5), 7), 9) >>> 0;
    const t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  // A float in [0, 1).
  float() { return this.next32() / 4294967296; }

  // An integer in [lo, hi] (inclusive).
  int(lo, hi) { return lo + Math.floor(this.float() * (hi - lo + 1)); }

  chance(p) { return this.float() < p; }

  pick(items) { return items[Math.floor(this.float() * items.length)]; }

  // items: [[weight, value], ...]
  weighted(items) {
    let total = 0;
    for (const [w] of items) total += w;
    let x = this.float() * total;
    for (const [w, v] of items) {
      x -= w;
      if (x < 0) return v;
    }
    return items[items.length - 1][1];
  }

  shuffle(items) {
    const a = items.slice();
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(this.float() * (i + 1));
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  }

  // k distinct elements of items, in random order.
  sample(items, k) { return this.shuffle(items).slice(0, Math.min(k, items.length)); }
}

function rotl(x, k) { return (x << k) | (x >>> (32 - k)); }

module.exports = { Rng };
