#!/usr/bin/env node
// Records Cedar's own answers for the extension types, as
// tests/core/extensions/extension_cases.inc, which extensions_test.cc checks our
// implementation against. Every fact in that file comes from evaluating a
// policy with cedar-wasm; the few values the script computes itself (the
// canonical form of an IP address or a decimal) are only written after Cedar
// has confirmed them with `==`.
//
//   mkdir -p /tmp/extoracle && cd /tmp/extoracle && npm init -y >/dev/null &&
//     npm install @cedar-policy/cedar-wasm@4.13.0
//   NODE_PATH=/tmp/extoracle/node_modules node tests/core/extensions/oracle_check.js \
//     > tests/core/extensions/extension_cases.inc
//
// How values come out of Cedar, which answers only allow/deny and errors:
// each question is a policy in one large policy set, and the request's
// context carries the strings. A boolean question `B` is the policy
// `when { B }` (satisfied, not satisfied, or an evaluation error). A Long
// question `E` is two policies, `E + 9223372036854775807 == 0` and
// `E + (-9223372036854775807 - 1) == 0`: one overflows unless E is 0, and
// the overflow message quotes E exactly, beyond JavaScript's 2^53.
'use strict';

const cedar = require(process.env.CEDAR_WASM || '@cedar-policy/cedar-wasm/nodejs');

const I64_MAX = (1n << 63n) - 1n;
const I64_MIN = -(1n << 63n);

// ------------------------------------------------------------ the oracle

// A question: args are strings placed in the context; expr(keys) is Cedar
// text over `context.<key>` for each arg; kind is 'bool' or 'long'.
function runQuestions(questions) {
  const BATCH = 250;
  for (let start = 0; start < questions.length; start += BATCH) {
    const batch = questions.slice(start, start + BATCH);
    const context = {};
    const policies = [];
    const slots = [];  // per question, its policy indexes
    batch.forEach((q, qi) => {
      const keys = q.args.map((a, ai) => {
        const k = `s${qi}_${ai}`;
        context[k] = a;
        return `context.${k}`;
      });
      const e = q.expr(keys);
      const mine = [];
      if (q.kind === 'bool') {
        mine.push(policies.length);
        policies.push(`permit(principal, action, resource) when { ${e} };`);
      } else {
        mine.push(policies.length);
        policies.push(`permit(principal, action, resource) when { (${e}) + 9223372036854775807 == 0 };`);
        mine.push(policies.length);
        policies.push(`permit(principal, action, resource) when { (${e}) + (-9223372036854775807 - 1) == 0 };`);
      }
      slots.push(mine);
    });
    const answer = cedar.isAuthorized({
      principal: { type: 'U', id: 'u' },
      action: { type: 'A', id: 'a' },
      resource: { type: 'R', id: 'r' },
      context,
      policies: { staticPolicies: policies.join('\n') },
      entities: [],
    });
    if (answer.type !== 'success') {
      throw new Error('cedar-wasm refused the request: ' + JSON.stringify(answer.errors));
    }
    const satisfied = new Set(answer.response.diagnostics.reason);
    const errors = new Map();
    for (const e of answer.response.diagnostics.errors) errors.set(e.policyId, e.error.message);
    batch.forEach((q, qi) => {
      const ids = slots[qi].map((i) => `policy${i}`);
      if (q.kind === 'bool') {
        const id = ids[0];
        if (errors.has(id)) q.result = { ok: false, msg: errors.get(id) };
        else q.result = { ok: true, v: satisfied.has(id) };
      } else {
        let value = null;
        let other = null;
        for (const id of ids) {
          if (!errors.has(id)) continue;
          const m = /^integer overflow while attempting to add the values `(-?\d+)` and `(9223372036854775807|-9223372036854775808)`$/.exec(
            errors.get(id));
          if (m) value = BigInt(m[1]);
          else other = errors.get(id);
        }
        if (other !== null && value === null) q.result = { ok: false, msg: other };
        else if (value !== null) q.result = { ok: true, v: value };
        else q.result = { ok: true, v: 0n };
      }
    });
  }
}

function ask(list, kind, args, expr) {
  const q = { kind, args, expr };
  list.push(q);
  return q;
}

// Extension calls with the wrong number of arguments, from the registry's
// extension rows (engine/core/src/builtins/builtins.def): each with one argument
// fewer and one more than it takes (a function also with none), every
// argument a well-typed value. Cedar parses each and fails it when it is
// evaluated.
function arityCalls() {
  const def = require('fs').readFileSync(require('path').join(__dirname, '../../../engine/core/src/builtins/builtins.def'), 'utf8');
  const sample = {
    String: '"1.0"', ipaddr: 'ip("10.0.0.1")', decimal: 'decimal("1.5")',
    datetime: 'datetime("2024-01-01")', duration: 'duration("1h")',
  };
  const typeName = { kString: 'String', kIpaddr: 'ipaddr', kDecimal: 'decimal', kDatetime: 'datetime', kDuration: 'duration' };
  const calls = [];
  for (const line of def.split('\n')) {
    const m = /^BUILTIN\((.*)\)\s*$/.exec(line);
    if (!m) continue;
    const cells = m[1].split(',').map((c) => c.trim());
    const [, name, style, , wrongArity] = cells;
    if (wrongArity !== 'kEvaluation') continue;
    const params = cells.slice(8).map((c) => typeName[c.replace('P::', '')]);
    const fn = JSON.parse(name);
    const counts = style === 'kFunction' ? [0, params.length + 1] : [params.length - 1, params.length + 1];
    for (const n of uniq(counts)) {
      if (n < 0 || (style === 'kMethod' && n < 1)) continue;
      const args = [];
      for (let i = 0; i < n; ++i) args.push(sample[params[Math.min(i, params.length - 1)]]);
      const expr = style === 'kFunction' ? `${fn}(${args.join(', ')})` : `${args[0]}.${fn}(${args.slice(1).join(', ')})`;
      calls.push(expr);
    }
  }
  return calls;
}

// --------------------------------------------------------------- helpers

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(20240601);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const pad = (n, w) => String(n).padStart(w, '0');

function uniq(xs) {
  return [...new Set(xs)];
}

// A C++ string literal for any string, by bytes, with octal escapes for
// anything outside printable ASCII (octal escapes stop after three digits).
function cxx(s) {
  let out = '"';
  for (const b of Buffer.from(s, 'utf8')) {
    if (b === 0x22) out += '\\"';
    else if (b === 0x5c) out += '\\\\';
    else if (b === 0x3f) out += '\\?';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += '\\' + b.toString(8).padStart(3, '0');
  }
  return out + '"';
}

function i64(v) {
  if (v === I64_MIN) return '(-9223372036854775807LL - 1)';
  return `${v}LL`;
}

// ------------------------------------------------------------ candidates

function ipCandidates() {
  const fixed = [
    // IPv4
    '0.0.0.0', '255.255.255.255', '256.0.0.0', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.04', '1.2.3.0',
    '00.0.0.0', '0.0.0.00', '1.2.3.4/0', '1.2.3.4/32', '1.2.3.4/33', '1.2.3.4/024', '1.2.3.4/24', '1.2.3.4/00',
    '1.2.3.4/01', '1.2.3.4/', '1.2.3.4//24', '1.2.3.4/ 24', '1.2.3.4/+8', '1.2.3.4/-1', '1.2.3.4/8/8', ' 1.2.3.4',
    '1.2.3.4 ', '1.2.3.4\n', '1..2.3', '1.2.3.', '.1.2.3', '0x1.2.3.4', '1.2.3.4a', '127.0.0.1', '127.0.0.1/8',
    '127.0.0.1/7', '127.255.255.255', '127.0.0.0/9', '126.255.255.255', '128.0.0.1', '224.0.0.0', '224.0.0.0/4',
    '224.0.0.0/3', '239.255.255.255', '239.255.255.255/32', '240.0.0.0', '223.255.255.255', '10.0.0.1/24',
    '10.0.0.0/24', '1234.1.1.1', '1.2.3.4%eth0', '1.2.3.4:80', '192.168.1.1/16', '192.168.0.0/16',
    '255.255.255.255/0', '0.0.0.0/0', '1.2.3.4/3 2', '1.2.3.4/1e1', '1.2.3.4/100', '1.2.3.4/999', '0377.0.0.1',
    '1.2.3.256', '1.2.3.255', '1.2.3.-1', '+1.2.3.4', '1.2.3.4/٣', '١.٢.٣.٤', '1.2.3.4\u0000', 'a.b.c.d',
    '1.2.3.4/32/', '1', '', '/', '/24', '.', '...', '1.1.1.1/08',
    // IPv6
    '::', '::/0', '::1', '::1/128', '::1/127', '::1/0128', '::1/129', '::1/999', '::1/1000', '::/', '::/00',
    '0::0', '::0', '0:0:0:0:0:0:0:0', '0:0:0:0:0:0:0:1', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7', '1:2:3:4:5:6:7::', '::2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8::', '::1:2:3:4:5:6:7:8', '1::8',
    '1::2::3', ':::', '::::', '1:::2', ':1', '1:', '1::', ':1::', '::1:', 'FFFF::', 'ffff::', 'FfFf::1', 'ff00::',
    'ff00::/8', 'ff00::/7', 'ff02::1', 'fe80::1', 'ff::', 'fe80::1%eth0', 'fe80::1%1', '[::1]', '::ffff:1.2.3.4',
    '::ffff:127.0.0.1', '::1.2.3.4', '1:2:3:4:5:6:1.2.3.4', '::ffff:0102:0304', '::ffff:7f00:1', '::ffff:7f00:1/104',
    '00000::', '0000::', '00001::', '12345::', '::12345', 'abcd:ef01:2345:6789:abcd:ef01:2345:6789',
    'abcd:ef01:2345:6789:abcd:ef01:2345:6789/128', '0000:0000:0000:0000:0000:0000:0000:0000/128',
    '0000:0000:0000:0000:0000:0000:0000:0000/1280', '0000:0000:0000:0000:0000:0000:0000:00000/12', '::g', 'g::',
    '2001:db8::/32', '2001:db8::1/64', '2001:0db8:0000:0000:0000:0000:0000:0001', '1:0:0:1:0:0:0:1',
    '1:0:0:1:0:0:1:1', '0:0:1:0:0:1:0:0', '1:0:1:0:1:0:1:0', '::ffff:0:0', '::ffff:ffff:ffff', '0:0:0:0:0:ffff:1:2',
    '::fffe:1:2', '::1:ffff:1:2', '1:2.3:4', '::1 ', ' ::1', '::1\t', ':: 1', '::1/64/', '::/128', '::/129',
    'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/0', '::%', '::1%',
    '::1.2', '::1.2.3', '1.2::', '1.2.3.4::', 'ff00::1.2.3.4', '::ffff:1.2.3.4/96', 'Ff00::/8', '::F', '::f/08',
    '::1/1 28', '0:0::0:0', '::0:0:0:0:0:0:0', '0:0:0:0:0:0:0::', '1::2:3:4:5:6:7', '1:2:3:4:5:6::7',
    '1:2:3:4:5::6:7:8', 'a:b:c:d:e:f:a:b/99', '::ffff:0:1',
  ];
  const out = [...fixed];
  const groupText = (g) => {
    let t = g.toString(16);
    if (rand() < 0.3) t = t.padStart(randInt(t.length, 4), '0');
    if (rand() < 0.3) t = t.toUpperCase();
    return t;
  };
  for (let n = 0; n < 120; ++n) {
    const octets = [0, 1, 2, 3].map(() => pick([0, 1, 10, 127, 224, 239, 240, 255, 256, randInt(0, 300)]));
    let s = octets.map((o) => (rand() < 0.07 ? '0' + o : String(o))).join('.');
    const r = rand();
    if (r < 0.4) s += '/' + randInt(0, 34);
    else if (r < 0.45) s += '/0' + randInt(0, 9);
    out.push(s);
  }
  for (let n = 0; n < 160; ++n) {
    const groups = [];
    for (let i = 0; i < 8; ++i) groups.push(rand() < 0.45 ? 0 : pick([1, 0xff, 0xff00, 0xffff, randInt(0, 0xffff)]));
    if (rand() < 0.15) { groups[0] = 0xff00 | randInt(0, 255); }
    if (rand() < 0.1) { for (let i = 0; i < 5; ++i) groups[i] = 0; groups[5] = 0xffff; }
    let text = groups.map(groupText);
    let s;
    // Compress some run of zero groups (not necessarily the longest).
    const runs = [];
    for (let i = 0; i < 8; ++i) {
      if (groups[i] !== 0) continue;
      let j = i;
      while (j < 8 && groups[j] === 0) ++j;
      runs.push([i, j]);
      i = j;
    }
    if (runs.length > 0 && rand() < 0.7) {
      const [i, j0] = pick(runs);
      const j = randInt(i + 1, j0);
      s = text.slice(0, i).join(':') + '::' + text.slice(j).join(':');
    } else {
      s = text.join(':');
    }
    const m = rand();
    if (m < 0.05) s = s.replace(/:/, ':::');
    else if (m < 0.1) s = s + ':';
    else if (m < 0.13) s = s.replace(/([0-9a-fA-F]+)/, '1$1');
    const r = rand();
    if (r < 0.45) s += '/' + randInt(0, 130);
    else if (r < 0.5) s += '/0' + randInt(0, 99);
    out.push(s);
  }
  return uniq(out);
}

function decimalCandidates() {
  const fixed = [
    '0.0', '-0.0', '+1.0', '1.23456', '1.2345', '1.', '1', '.5', '-.5', '1.0.0', '00001.5000', '922337203685477.5807',
    '922337203685477.5808', '-922337203685477.5808', '-922337203685477.5809', '922337203685478.0',
    '-922337203685478.0', '922337203685477.9999', '922337203685476.9999', '9223372036854775807.0',
    '9223372036854775808.0', '-9223372036854775808.0', '99999999999999999999.0', '99999999999999999999.00000',
    '0.00000', '1e3', '1.0e3', ' 1.0', '1.0 ', '1,0', '--1.0', '-', '-1.-1', '١.٠', '1.٠', '٣.0', '0.0001',
    '-0.0001', '123456789.1234', '1_000.0', '0x1.0', 'NaN', 'inf', '', '.', '-.', '0.', '-0.', '1.2a', '12.34',
    '-12.34', '0000000000000000000000000000001.1', '-0000000000000000000000000000001.1', '1.0\n', '1.0000',
    '1.00000', '922337203685477.58070', '-922337203685477.5808 ', '0.9999', '-0.9999', '1.-0', '1..0', '1.+0',
  ];
  const out = [...fixed];
  for (let n = 0; n < 140; ++n) {
    let whole = '';
    const len = pick([1, 1, 2, 3, 5, 10, 14, 15, 15, 16, 19, 20]);
    for (let i = 0; i < len; ++i) whole += String(randInt(0, 9));
    if (len === 15 && rand() < 0.5) whole = pick(['922337203685477', '922337203685476', '922337203685478']);
    let frac = '';
    const flen = pick([1, 2, 3, 4, 4, 4, 5]);
    for (let i = 0; i < flen; ++i) frac += String(randInt(0, 9));
    out.push((rand() < 0.4 ? '-' : '') + whole + '.' + frac);
  }
  return uniq(out);
}

function datetimeCandidates() {
  const fixed = [
    '2024-01-01', '2024-02-29', '2023-02-29', '2000-02-29', '1900-02-29', '2100-02-29', '0000-02-29', '0004-02-29',
    '0100-02-29', '0400-02-29', '0000-01-01', '9999-12-31', '9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999-2359',
    '0000-01-01T00:00:00+2359', '0000-01-01T00:00:00.000+2359', '2024-13-01', '2024-00-01', '2024-01-00',
    '2024-01-32', '2024-04-31', '2024-06-31', '2024-12-31', '2024-11-31', '2024-01-01T24:00:00Z',
    '2024-01-01T23:60:00Z', '2024-01-01T23:59:60Z', '2016-12-31T23:59:60Z', '2024-01-01T00:00:00z',
    '2024-01-01T00:00:00', '2024-01-01T00:00:00+2400', '2024-01-01T00:00:00+0060', '2024-01-01T00:00:00+2359',
    '2024-01-01T00:00:00-2359', '2024-01-01T00:00:00-2400', '2024-01-01T00:00:00.1Z', '2024-01-01T00:00:00.12Z',
    '2024-01-01T00:00:00.1234Z', '2024-01-01T00:00:00.123+0100', '2024-01-01T00:00:00+01:00',
    '2024-01-01T00:00:00+01', '2024-01-01 00:00:00Z', '2024-1-1', '24-01-01', '+2024-01-01', '-2024-01-01',
    '20240-01-01', '2024-01-01T00:00Z', '2024-01-01TZ', '2024-01-01T', '2024-01-01Z', '2024-01-01T00:00:00.Z',
    '2024-01-01T00:00:00.123', '2024-01-01T00:00:00Z ', '2024-01-01\n', ' 2024-01-01', '2024-01-01 ',
    '1969-12-31T23:59:59.999Z', '1970-01-01T00:00:00.001Z', '1970-01-01', '1970-01-01T00:00:00Z',
    '2024-01-01T00:00:00.000+0000', '2024-01-01T00:00:00-0000', '２０２４-01-01', '2024-01-01t00:00:00Z',
    '2024-01-01T00:00:00.000', '2024-01-01T00:00:00ZZ', '2024-01-01T00:00:00+0000Z', '2024-01-01T00:00:00.000Z+0100',
    '2024-01-01T1:00:00Z', '2024-01-01T01:0:00Z', '2024-01-01T01:00:0Z', '2024-01-01T01:00:00.00Z',
    '2024/01/01', '2024-01-01T00:00:00.-01Z', '2024-02-30T00:00:00Z', '2024-02-30T24:00:00Z',
    '2024-02-30T00:00:00+2400', '2024-01-01T24:00:00+2400', '2024-01-01T00:00:00+9999', '2024-01-01T99:99:99Z',
    '2024-01-01T00:00:00.999+2359', '2024-01-01T00:00:00.999-2359', '', 'T00:00:00Z', '2024-01-01T00:00:00Z\u0000',
    '2024-01-01T00:00:00\u00a0Z', '1600-02-29', '1700-02-29', '1582-10-10', '9999-12-31T23:59:59Z',
  ];
  const out = [...fixed];
  for (let n = 0; n < 200; ++n) {
    const y = pick([0, 1, 4, 100, 400, 1900, 1969, 1970, 2000, 2024, 2100, 9999, randInt(0, 9999)]);
    const mo = rand() < 0.9 ? randInt(1, 12) : randInt(0, 13);
    const d = rand() < 0.8 ? randInt(1, 28) : randInt(0, 32);
    let s = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}`;
    if (rand() < 0.75) {
      const h = rand() < 0.9 ? randInt(0, 23) : randInt(0, 25);
      const mi = rand() < 0.9 ? randInt(0, 59) : randInt(0, 61);
      const se = rand() < 0.9 ? randInt(0, 59) : randInt(0, 61);
      s += `T${pad(h, 2)}:${pad(mi, 2)}:${pad(se, 2)}`;
      if (rand() < 0.5) s += '.' + pad(randInt(0, 999), rand() < 0.9 ? 3 : randInt(1, 4));
      const r = rand();
      if (r < 0.4) s += 'Z';
      else if (r < 0.95) {
        const oh = rand() < 0.9 ? randInt(0, 23) : randInt(24, 30);
        const om = rand() < 0.9 ? randInt(0, 59) : randInt(60, 99);
        s += pick(['+', '-']) + pad(oh, 2) + pad(om, 2);
      }
    }
    out.push(s);
  }
  return uniq(out);
}

function durationCandidates() {
  const fixed = [
    '', '-', '0ms', '0', '1', 'ms', '1d2d', '1h1d', '1d1h', '--1d', '-1d', '+1d', '1D', '1d ', ' 1d', '1d2h3m4s5ms',
    '-1d2h3m4s5ms', '1m', '1s', '1ms', '1m1ms', '1ms1m', '1s1ms', '1h1m1s1ms', '1.5h', '1 d', '1d-1h',
    '9223372036854775807ms', '9223372036854775808ms', '-9223372036854775808ms', '-9223372036854775809ms',
    '106751991167d', '106751991168d', '-106751991167d', '-106751991168d', '106751991167d7h12m55s807ms',
    '106751991167d7h12m55s808ms', '-106751991167d7h12m55s808ms', '-106751991167d7h12m55s809ms',
    '18446744073709551615ms', '18446744073709551616ms', '-18446744073709551616ms', '0000000000000000000000001ms',
    '00d', '1msms', '1mss', '1dd', '1hm', '1dh', 'h', 'd1', '-0ms', '-0d', '1s2m', '1m2h', '2562047788015215h',
    '2562047788015216h', '153722867280912930m', '153722867280912931m', '9223372036854775s', '9223372036854776s',
    '-9223372036854775s', '-9223372036854776s', '-2562047788015215h30m8s', '1y', '1w', '1us', '1ns', '1M',
    '1H', '1S', '1MS', '1mS', '1Ms', '1d\n', '1d2h3m4s5ms6', '0d0h0m0s0ms', '-0d0h0m0s0ms', '1d0h', '١d',
    '1d_2h', '1d 2h', '01h', '9223372036854775807s', '1d1d1d', '1s1s', '1ms1ms', '1m1m', '1h1h', '10000000000000000000000000000d',
    '-9223372036854775807ms', '-1ms', '999ms', '1000ms', '86399999ms', '86400000ms', '-86400001ms',
  ];
  const out = [...fixed];
  const units = ['d', 'h', 'm', 's', 'ms'];
  for (let n = 0; n < 160; ++n) {
    let s = rand() < 0.35 ? '-' : '';
    const inOrder = rand() < 0.85;
    let us = units.filter(() => rand() < 0.45);
    if (us.length === 0) us = [pick(units)];
    if (!inOrder) us = us.sort(() => rand() - 0.5);
    for (const u of us) {
      const big = rand() < 0.15;
      const v = big ? BigInt(randInt(0, 1e9)) * BigInt(randInt(0, 1e9)) * BigInt(randInt(1, 100)) : BigInt(randInt(0, 100000));
      s += v.toString() + u;
    }
    out.push(s);
  }
  return uniq(out);
}

// Instants and durations for the operations, as millisecond counts.
function msValues() {
  const fixed = [
    0n, 1n, -1n, 999n, -999n, 1000n, -1000n, 59999n, 60000n, -60000n, 3599999n, 3600000n, -3600001n, 86399999n,
    86400000n, 86400001n, -86399999n, -86400000n, -86400001n, -172800000n, 1704067200000n, 1704153599999n,
    -62167219200000n, 253402300799999n, I64_MAX, I64_MIN, I64_MIN + 1n, I64_MAX - 1n, I64_MIN + 86400000n,
    I64_MIN + 86399999n, I64_MIN + 25975807n, I64_MIN + 25975808n, I64_MIN + 25975809n, I64_MIN + 112375808n,
    I64_MIN + 112375807n, I64_MAX - 86400000n, I64_MAX - 25975807n, -(1n << 53n), 1n << 53n,
  ];
  const out = [...fixed];
  for (let n = 0; n < 20; ++n) {
    const v = (BigInt(randInt(0, 2 ** 31)) << 32n) | BigInt(randInt(0, 2 ** 32 - 1));
    out.push(rand() < 0.5 ? v : -v - 1n);
    out.push(BigInt(randInt(-1e9, 1e9)) * 86400000n + BigInt(randInt(-5, 5)));
  }
  return uniq(out);
}

// ------------------------------------------------------------ JS helpers

// The canonical "h:h:h:h:h:h:h:h/p" or "a.b.c.d/p" of an address Cedar
// accepted, computed here (by way of the WHATWG URL parser) and confirmed
// by Cedar's `==` before use. Returns null if this script cannot tell.
function ipCanonical(s) {
  const slash = s.indexOf('/');
  const addr = slash < 0 ? s : s.slice(0, slash);
  try {
    if (!addr.includes(':')) {
      const o = addr.split('.').map(Number);
      if (o.length !== 4 || o.some((x) => !(x >= 0 && x <= 255))) return null;
      const prefix = slash < 0 ? 32 : Number(s.slice(slash + 1));
      return { v6: false, prefix, bytes: o, text: `${o.join('.')}/${prefix}` };
    }
    const host = new URL(`http://[${addr}]/`).hostname.slice(1, -1);
    let [head, tail] = host.includes('::') ? host.split('::') : [host, null];
    const h = head ? head.split(':') : [];
    const t = tail === null ? [] : tail ? tail.split(':') : [];
    const groups = tail === null ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
    if (groups.length !== 8) return null;
    const g = groups.map((x) => parseInt(x, 16));
    const prefix = slash < 0 ? 128 : Number(s.slice(slash + 1));
    const bytes = [];
    for (const x of g) bytes.push(x >> 8, x & 0xff);
    return { v6: true, prefix, bytes, text: `${g.map((x) => x.toString(16)).join(':')}/${prefix}` };
  } catch (e) {
    return null;
  }
}

function decimalCanonical(s) {
  const m = /^(-?)([0-9]+)\.([0-9]{1,4})$/.exec(s);
  if (!m) return null;
  const v = BigInt(m[2]) * 10000n + BigInt(m[3].padEnd(4, '0'));
  const value = m[1] ? -v : v;
  const abs = value < 0n ? -value : value;
  return { value, text: `${value < 0n ? '-' : ''}${abs / 10000n}.${pad(abs % 10000n, 4)}` };
}

// ------------------------------------------------------------------ main

function main() {
  const qs = [];
  const problems = [];

  // ipaddr
  const ips = ipCandidates().map((s) => ({
    s,
    v4: ask(qs, 'bool', [s], (k) => `ip(${k[0]}).isIpv4()`),
    v6: ask(qs, 'bool', [s], (k) => `ip(${k[0]}).isIpv6()`),
    loop: ask(qs, 'bool', [s], (k) => `ip(${k[0]}).isLoopback()`),
    multi: ask(qs, 'bool', [s], (k) => `ip(${k[0]}).isMulticast()`),
  }));
  // decimal
  const decs = decimalCandidates().map((s) => ({ s, ok: ask(qs, 'bool', [s], (k) => `decimal(${k[0]}) == decimal(${k[0]})`) }));
  // datetime and duration
  const dts = datetimeCandidates().map((s) => ({
    s,
    ms: ask(qs, 'long', [s], (k) => `datetime(${k[0]}).durationSince(datetime("1970-01-01")).toMilliseconds()`),
  }));
  const durs = durationCandidates().map((s) => ({ s, ms: ask(qs, 'long', [s], (k) => `duration(${k[0]}).toMilliseconds()`) }));
  // wrong arities: parsed alone, then evaluated with the others
  const arities = arityCalls().map((e) => {
    const parsed = cedar.checkParsePolicySet({ staticPolicies: `permit(principal, action, resource) when { ${e} };` });
    return { e, parses: parsed.type === 'success', q: ask(qs, 'bool', [], () => e) };
  });
  runQuestions(qs);

  // Second round: confirm canonical values, and ask the pairwise questions.
  const qs2 = [];
  const acceptedIps = [];
  for (const ip of ips) {
    if (!ip.v4.result.ok) continue;
    const c = ipCanonical(ip.s);
    if (!c) {
      problems.push(`no canonical form for accepted ip ${JSON.stringify(ip.s)}`);
      continue;
    }
    ip.canon = c;
    ip.confirm = ask(qs2, 'bool', [ip.s, c.text], (k) => `ip(${k[0]}) == ip(${k[1]})`);
    acceptedIps.push(ip);
  }
  for (const d of decs) {
    if (!d.ok.result.ok) continue;
    const c = decimalCanonical(d.s);
    if (!c) {
      problems.push(`no canonical form for accepted decimal ${JSON.stringify(d.s)}`);
      continue;
    }
    d.canon = c;
    d.confirm = ask(qs2, 'bool', [d.s, c.text], (k) => `decimal(${k[0]}) == decimal(${k[1]})`);
  }
  // Pairs over a spread of accepted addresses: both versions, prefixes, host bits.
  const pairSet = uniq([
    '0.0.0.0/0', '10.0.0.0/8', '10.0.0.1', '10.0.0.1/24', '10.0.0.0/24', '10.0.0.255/24', '10.0.1.0/24',
    '10.0.0.0/32', '10.0.0.1/32', '127.0.0.1', '127.0.0.1/8', '192.168.1.1/16', '192.168.0.0/16',
    '255.255.255.255', '255.255.255.255/0', '1.2.3.4/31', '1.2.3.5/31', '::', '::/0', '::1', '::1/128',
    '::1/127', '::/127', '::ffff:102:304', '::ffff:102:304/96', 'ff00::/8', 'ff02::1', '2001:db8::/32',
    '2001:db8::1/64', '2001:db8:0:0:1::/80', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/0', '::a00:1', '::a00:0/104',
  ]);
  const pairs = [];
  for (const a of pairSet) {
    for (const b of pairSet) {
      pairs.push({
        a, b,
        range: ask(qs2, 'bool', [a, b], (k) => `ip(${k[0]}).isInRange(ip(${k[1]}))`),
        eq: ask(qs2, 'bool', [a, b], (k) => `ip(${k[0]}) == ip(${k[1]})`),
      });
    }
  }
  // Operations on instants and durations given as exact millisecond counts.
  const ms = msValues();
  const dt = (k) => `datetime("1970-01-01").offset(duration(${k}))`;
  const ops = [];
  const opPairs = [];
  for (const a of ms) for (const b of ms) if (rand() < 0.25 || ms.indexOf(a) < 14 && ms.indexOf(b) < 30) opPairs.push([a, b]);
  for (const [a, b] of opPairs) {
    const as = `${a}ms`, bs = `${b}ms`;
    ops.push({ op: 'Offset', a, b, q: ask(qs2, 'long', [as, bs], (k) => `${dt(k[0])}.offset(duration(${k[1]})).durationSince(datetime("1970-01-01")).toMilliseconds()`) });
    ops.push({ op: 'DurationSince', a, b, q: ask(qs2, 'long', [as, bs], (k) => `${dt(k[0])}.durationSince(${dt(k[1])}).toMilliseconds()`) });
  }
  const units = [];
  for (const a of ms) {
    const as = `${a}ms`;
    ops.push({ op: 'ToDate', a, b: 0n, q: ask(qs2, 'long', [as], (k) => `${dt(k[0])}.toDate().durationSince(datetime("1970-01-01")).toMilliseconds()`) });
    ops.push({ op: 'ToTime', a, b: 0n, q: ask(qs2, 'long', [as], (k) => `${dt(k[0])}.toTime().toMilliseconds()`) });
    const u = { a };
    for (const f of ['toDays', 'toHours', 'toMinutes', 'toSeconds', 'toMilliseconds']) {
      u[f] = ask(qs2, 'long', [as], (k) => `duration(${k[0]}).${f}()`);
    }
    units.push(u);
  }
  runQuestions(qs2);

  // ---- write the .inc
  const lines = [];
  let count = 0;
  const emit = (line) => {
    lines.push(line);
    ++count;
  };
  lines.push('// Generated by tests/core/extensions/oracle_check.js from @cedar-policy/cedar-wasm ' + cedar.getCedarVersion() +
    ' (Cedar language ' + cedar.getCedarLangVersion() + '). Do not edit.');
  const kinds = ['IP_CASE', 'IP_PAIR_CASE', 'DECIMAL_CASE', 'DATETIME_CASE', 'DURATION_CASE', 'OP_CASE', 'UNITS_CASE', 'ARITY_CASE'];
  lines.push('// A kind of case its includer does not define expands to nothing.');
  for (const k of kinds) lines.push(`#ifndef ${k}`, `#define ${k}(...)`, '#endif');
  lines.push('// IP_CASE(input, accepted, v6, prefix, "address bytes in hex", isLoopback, isMulticast)');
  for (const ip of ips) {
    if (!ip.v4.result.ok) {
      emit(`IP_CASE(${cxx(ip.s)}, false, false, 0, "", false, false)`);
      continue;
    }
    if (!ip.canon) continue;
    if (!ip.confirm.result.ok || ip.confirm.result.v !== true) {
      problems.push(`cedar did not confirm ${ip.s} == ${ip.canon.text}: ${JSON.stringify(ip.confirm.result)}`);
      continue;
    }
    if (ip.v6.result.v !== ip.canon.v6 || ip.v4.result.v === ip.canon.v6) problems.push(`version mismatch ${ip.s}`);
    const hex = ip.canon.bytes.map((b) => pad(b.toString(16), 2)).join('');
    emit(`IP_CASE(${cxx(ip.s)}, true, ${ip.canon.v6}, ${ip.canon.prefix}, "${hex}", ${ip.loop.result.v}, ${ip.multi.result.v})`);
  }
  lines.push('// IP_PAIR_CASE(a, b, a.isInRange(b), a == b)');
  for (const p of pairs) {
    if (!p.range.result.ok || !p.eq.result.ok) {
      problems.push(`pair ${p.a} ${p.b} errored`);
      continue;
    }
    emit(`IP_PAIR_CASE(${cxx(p.a)}, ${cxx(p.b)}, ${p.range.result.v}, ${p.eq.result.v})`);
  }
  lines.push('// DECIMAL_CASE(input, accepted, value * 10^4)');
  for (const d of decs) {
    if (!d.ok.result.ok) {
      emit(`DECIMAL_CASE(${cxx(d.s)}, false, 0LL)`);
      continue;
    }
    if (!d.canon) continue;
    if (!d.confirm.result.ok || d.confirm.result.v !== true) {
      problems.push(`cedar did not confirm ${d.s} == ${d.canon.text}`);
      continue;
    }
    emit(`DECIMAL_CASE(${cxx(d.s)}, true, ${i64(d.canon.value)})`);
  }
  lines.push('// DATETIME_CASE(input, accepted, milliseconds since the epoch)');
  for (const d of dts) {
    const r = d.ms.result;
    if (!r.ok && !/`datetime`/.test(r.msg)) problems.push(`datetime ${d.s}: unexpected error ${r.msg}`);
    emit(`DATETIME_CASE(${cxx(d.s)}, ${r.ok}, ${r.ok ? i64(r.v) : '0LL'})`);
  }
  lines.push('// DURATION_CASE(input, accepted, milliseconds)');
  for (const d of durs) {
    const r = d.ms.result;
    if (!r.ok && !/`duration`/.test(r.msg)) problems.push(`duration ${d.s}: unexpected error ${r.msg}`);
    emit(`DURATION_CASE(${cxx(d.s)}, ${r.ok}, ${r.ok ? i64(r.v) : '0LL'})`);
  }
  lines.push('// OP_CASE(operation, a, b, succeeds, result): Offset(a, b), DurationSince(a, b), ToDate(a), ToTime(a)');
  for (const o of ops) {
    const r = o.q.result;
    if (!r.ok && !/overflow/.test(r.msg)) problems.push(`${o.op} ${o.a} ${o.b}: unexpected error ${r.msg}`);
    emit(`OP_CASE(${o.op}, ${i64(o.a)}, ${i64(o.b)}, ${r.ok}, ${r.ok ? i64(r.v) : '0LL'})`);
  }
  lines.push('// UNITS_CASE(ms, toDays, toHours, toMinutes, toSeconds, toMilliseconds)');
  for (const u of units) {
    const vals = ['toDays', 'toHours', 'toMinutes', 'toSeconds', 'toMilliseconds'].map((f) => {
      if (!u[f].result.ok) problems.push(`${f} ${u.a} errored`);
      return i64(u[f].result.v);
    });
    emit(`UNITS_CASE(${i64(u.a)}, ${vals.join(', ')})`);
  }
  lines.push('// ARITY_CASE(policy condition, Cedar parses it, its evaluation error)');
  for (const a of arities) {
    const r = a.q.result;
    if (!a.parses || r.ok) problems.push(`${a.e}: expected to parse and fail when evaluated`);
    emit(`ARITY_CASE(${cxx(a.e)}, ${a.parses}, ${cxx(r.ok ? '' : r.msg)})`);
  }
  lines.push(`// ${count} cases.`);
  for (const k of kinds) lines.push(`#undef ${k}`);
  process.stdout.write(lines.join('\n') + '\n');
  process.stderr.write(`${count} cases from ${qs.length + qs2.length} questions to Cedar; ${problems.length} problems\n`);
  for (const p of problems) process.stderr.write('  ' + p + '\n');
  process.exitCode = problems.length === 0 ? 0 : 1;
}

main();
