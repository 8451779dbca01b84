// Prints the generator's policy AST as Cedar text, parenthesising by Cedar's
// precedence so that any tree (including the minimiser's rewrites) prints as
// a policy that parses to the same tree.
//
// Expression nodes: {k: 'bool'|'long'|'string', v} literals (long v is a
// BigInt), {k:'entity', type, id}, {k:'var', name}, {k:'not'|'neg', a},
// {k:'bin', op, a, b}, {k:'has', a, path, form:'ident'|'string'},
// {k:'attr', a, name, form:'dot'|'index'}, {k:'like', a, pattern:[string|'*'
// elements as {lit}|{star:true}]}, {k:'is', a, type, in}, {k:'if', c, t, e},
// {k:'set', items}, {k:'record', entries:[{key, value, quoted}]},
// {k:'method', name, recv, args}, {k:'call', fn, args}, {k:'paren', a}.
'use strict';

const RESERVED = new Set(['true', 'false', 'if', 'then', 'else', 'in', 'like', 'has', 'is', '__cedar']);

function isIdent(s) { return /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(s) && !RESERVED.has(s); }

// Precedence levels (loosest first).
const L = { IF: 1, OR: 2, AND: 3, REL: 4, ADD: 5, MUL: 6, UNARY: 7, MEMBER: 8, PRIMARY: 9 };

const REL_OPS = new Set(['==', '!=', '<', '<=', '>', '>=', 'in']);

// style: {escapes: 'plain'|'mixed'} chooses between equivalent spellings of
// string characters; `mixed` uses \x, \u{..} and \' where allowed. The choice
// is made per character from a hash so that printing is deterministic.
function quote(s, opts = {}) {
  let out = '"';
  let n = 0;
  for (const ch of s) {
    n++;
    const cp = ch.codePointAt(0);
    const alt = opts.mixed && ((cp * 31 + n * 17) % 5 === 0);
    if (ch === '*' && opts.pattern) out += '\\*';
    else if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += alt ? '\\u{a}' : '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\0') out += '\\0';
    else if (cp < 0x20 || cp === 0x7f) out += `\\u{${cp.toString(16)}}`;
    else if (ch === "'" && alt) out += "\\'";
    else if (cp < 0x80 && alt && /[a-zA-Z0-9 ]/.test(ch)) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp >= 0x80 && alt) out += `\\u{${cp.toString(16)}}`;
    else out += ch;
  }
  return `${out}"`;
}

function patternText(pattern, opts) {
  let out = '"';
  for (const el of pattern) {
    if (el.star) out += '*';
    else out += quote(el.lit, { ...opts, pattern: true }).slice(1, -1);
  }
  return `${out}"`;
}

function entityText(type, id, opts) { return `${type}::${quote(id, opts)}`; }

// Returns {s, lvl, uop, ulen}: text, precedence level, and for a unary chain
// its operator and length (Cedar allows at most four in a row).
function expr(e, opts) {
  const wrap = (sub, min) => (sub.lvl < min ? `(${sub.s})` : sub.s);
  const P = (s) => ({ s, lvl: L.PRIMARY });
  switch (e.k) {
    case 'bool': return P(e.v ? 'true' : 'false');
    case 'long': return e.v < 0n ? { s: `-${-e.v}`, lvl: L.UNARY, uop: '-', ulen: 1 } : P(`${e.v}`);
    case 'string': return P(quote(e.v, opts));
    case 'entity': return P(entityText(e.type, e.id, opts));
    case 'var': return P(e.name);
    case 'paren': return P(`(${expr(e.a, opts).s})`);
    case 'not':
    case 'neg': {
      const op = e.k === 'not' ? '!' : '-';
      const inner = expr(e.a, opts);
      if (inner.lvl === L.UNARY && inner.uop === op && inner.ulen < 4) {
        return { s: op + inner.s, lvl: L.UNARY, uop: op, ulen: inner.ulen + 1 };
      }
      return { s: op + wrap(inner, L.MEMBER), lvl: L.UNARY, uop: op, ulen: 1 };
    }
    case 'bin': {
      const a = expr(e.a, opts);
      const b = expr(e.b, opts);
      if (e.op === '||') return { s: `${wrap(a, L.OR)} || ${wrap(b, L.AND)}`, lvl: L.OR };
      if (e.op === '&&') return { s: `${wrap(a, L.AND)} && ${wrap(b, L.REL)}`, lvl: L.AND };
      if (REL_OPS.has(e.op)) return { s: `${wrap(a, L.ADD)} ${e.op} ${wrap(b, L.ADD)}`, lvl: L.REL };
      if (e.op === '+' || e.op === '-') return { s: `${wrap(a, L.ADD)} ${e.op} ${wrap(b, L.MUL)}`, lvl: L.ADD };
      if (e.op === '*') return { s: `${wrap(a, L.MUL)} * ${wrap(b, L.UNARY)}`, lvl: L.MUL };
      throw new Error(`unknown operator ${e.op}`);
    }
    case 'has': {
      const a = wrap(expr(e.a, opts), L.ADD);
      const tail = e.form === 'string' ? quote(e.path[0], opts) : e.path.join('.');
      return { s: `${a} has ${tail}`, lvl: L.REL };
    }
    case 'like': return { s: `${wrap(expr(e.a, opts), L.ADD)} like ${patternText(e.pattern, opts)}`, lvl: L.REL };
    case 'is': {
      let s = `${wrap(expr(e.a, opts), L.ADD)} is ${e.type}`;
      if (e.in) s += ` in ${wrap(expr(e.in, opts), L.ADD)}`;
      return { s, lvl: L.REL };
    }
    case 'if':
      return { s: `if ${expr(e.c, opts).s} then ${expr(e.t, opts).s} else ${expr(e.e, opts).s}`, lvl: L.IF };
    case 'attr': {
      const a = wrap(expr(e.a, opts), L.MEMBER);
      return { s: e.form === 'dot' ? `${a}.${e.name}` : `${a}[${quote(e.name, opts)}]`, lvl: L.MEMBER };
    }
    case 'method': {
      const r = wrap(expr(e.recv, opts), L.MEMBER);
      return { s: `${r}.${e.name}(${e.args.map((x) => expr(x, opts).s).join(', ')})`, lvl: L.MEMBER };
    }
    case 'call': return P(`${e.fn}(${e.args.map((x) => expr(x, opts).s).join(', ')})`);
    case 'set': return P(`[${e.items.map((x) => expr(x, opts).s).join(', ')}]`);
    case 'record':
      return P(`{${e.entries.map((en) => `${en.quoted ? quote(en.key, opts) : en.key}: ${expr(en.value, opts).s}`).join(', ')}}`);
    default:
      throw new Error(`unknown node ${e.k}`);
  }
}

function exprText(e, opts = {}) { return expr(e, opts).s; }

function scopeText(var_, c, opts) {
  if (c.slot) {
    // A template's slot: `== ?principal`, `in ?principal`, `is T in ?principal`.
    if (c.op === 'is-in') return `${var_} is ${c.type} in ${c.slot}`;
    return `${var_} ${c.op} ${c.slot}`;
  }
  switch (c.op) {
    case 'all': return var_;
    case '==': return `${var_} == ${entityText(c.entity.type, c.entity.id, opts)}`;
    case 'in': return `${var_} in ${entityText(c.entity.type, c.entity.id, opts)}`;
    case 'in-list':
      return `${var_} in [${c.entities.map((u) => entityText(u.type, u.id, opts)).join(', ')}]`;
    case 'is': return `${var_} is ${c.type}`;
    case 'is-in': return `${var_} is ${c.type} in ${entityText(c.entity.type, c.entity.id, opts)}`;
    default: throw new Error(`unknown scope ${c.op}`);
  }
}

// Policy: {annotations:[{key, value|null}], effect, principal, action,
// resource, conditions:[{kind, body}], style:{multiline, trailingComma,
// mixed}}.
function policyText(p) {
  const o = { mixed: !!(p.style && p.style.mixed) };
  const ml = !!(p.style && p.style.multiline);
  const nl = ml ? '\n' : ' ';
  let s = '';
  for (const a of p.annotations) s += `@${a.key}${a.value === null ? '' : `(${quote(a.value, o)})`}${nl}`;
  const scope = [scopeText('principal', p.principal, o), scopeText('action', p.action, o),
    scopeText('resource', p.resource, o)];
  const comma = p.style && p.style.trailingComma ? ',' : '';
  s += ml ? `${p.effect} (\n  ${scope.join(',\n  ')}${comma}\n)` : `${p.effect}(${scope.join(', ')}${comma})`;
  for (const c of p.conditions) s += `${nl}${c.kind} { ${exprText(c.body, o)} }`;
  return `${s};`;
}

function policySetText(policies, comments = []) {
  const parts = [];
  policies.forEach((p, i) => {
    if (comments[i]) parts.push(`// ${comments[i]}`);
    parts.push(policyText(p));
  });
  return parts.length ? `${parts.join('\n')}\n` : '';
}

module.exports = { isIdent, quote, exprText, policyText, policySetText, RESERVED };
