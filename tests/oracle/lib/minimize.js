// Greedy minimisation of a failing case: drop requests, policies, entities,
// parents, attributes, tags, context entries, annotations, conditions and
// scope constraints, and replace sub-expressions by their children, keeping
// each step only while the case still fails the same way.
'use strict';

const { policySetText } = require('./print');

function childPaths(node) {
  switch (node.k) {
    case 'not': case 'neg': case 'paren': case 'attr': case 'has': case 'like': return [['a']];
    case 'bin': return [['a'], ['b']];
    case 'is': return node.in ? [['a'], ['in']] : [['a']];
    case 'if': return [['c'], ['t'], ['e']];
    case 'method': return [['recv'], ...node.args.map((_, i) => ['args', i])];
    case 'call': return node.args.map((_, i) => ['args', i]);
    case 'set': return node.items.map((_, i) => ['items', i]);
    case 'record': return node.entries.map((_, i) => ['entries', i, 'value']);
    default: return [];
  }
}

function getPath(obj, p) { return p.reduce((o, k) => o[k], obj); }
function setPath(obj, p, v) { getPath(obj, p.slice(0, -1))[p[p.length - 1]] = v; }

// Every expression position in a policy, outermost first.
function exprPaths(policy) {
  const out = [];
  const walk = (p) => {
    out.push(p);
    for (const c of childPaths(getPath(policy, p))) walk(p.concat(c));
  };
  policy.conditions.forEach((_, i) => walk(['conditions', i, 'body']));
  return out;
}

function withText(c) {
  return { ...c, policies: policySetText(c.ast.policies, c.ast.comments) };
}

// c: {ast:{policies, comments}, entities, requests}; fails(case) -> bool.
// Returns the smallest failing case found within `budget` evaluations.
function minimize(c, fails, { budget = 600, request } = {}) {
  const keep = (x) => ({ ast: x.ast, entities: x.entities, requests: x.requests, ...(x.links ? { links: x.links } : {}) });
  let best = withText(structuredClone(keep(c)));
  let tries = 0;
  const attempt = (mutate) => {
    if (tries >= budget) return false;
    const cand = structuredClone(keep(best));
    if (mutate(cand) === false) return false;
    const full = withText(cand);
    tries++;
    if (!fails(full)) return false;
    best = full;
    return true;
  };
  // Removes elements of the array get(case) picks, in
  // chunks from halves down to single elements.
  const shrinkList = (get, min = 0) => {
    let changed = false;
    for (let size = Math.max(1, get(best).length >> 1); size >= 1; size >>= 1) {
      for (let start = 0; start < get(best).length;) {
        const ok = attempt((cand) => {
          const list = get(cand);
          if (start >= list.length || list.length - size < min) return false;
          list.splice(start, size);
          return undefined;
        });
        if (ok) changed = true;
        else start += size;
      }
    }
    return changed;
  };

  // Requests: the one that disagrees, when known.
  if (request !== undefined && best.requests.length > 1) {
    attempt((cand) => { cand.requests = [cand.requests[request]]; });
  }
  shrinkList((x) => x.requests, 1);
  attempt((cand) => { cand.ast.comments = []; });

  let progress = true;
  while (progress && tries < budget) {
    progress = false;
    if (shrinkList((x) => x.ast.policies)) progress = true;
    if (best.links && shrinkList((x) => x.links)) progress = true;
    if (shrinkList((x) => x.entities)) progress = true;
    for (let i = 0; i < best.entities.length; i++) {
      if (shrinkList((x) => x.entities[i].parents)) progress = true;
      for (const key of Object.keys(best.entities[i].attrs)) {
        if (attempt((cand) => { delete cand.entities[i].attrs[key]; })) progress = true;
      }
      if (best.entities[i].tags !== undefined) {
        if (attempt((cand) => { delete cand.entities[i].tags; })) progress = true;
        else {
          for (const key of Object.keys(best.entities[i].tags)) {
            if (attempt((cand) => { delete cand.entities[i].tags[key]; })) progress = true;
          }
        }
      }
    }
    for (let i = 0; i < best.requests.length; i++) {
      for (const key of Object.keys(best.requests[i].context || {})) {
        if (attempt((cand) => { delete cand.requests[i].context[key]; })) progress = true;
      }
    }
    for (let i = 0; i < best.ast.policies.length; i++) {
      const p = () => best.ast.policies[i];
      if (p().style && (p().style.multiline || p().style.mixed || p().style.trailingComma)) {
        attempt((cand) => { cand.ast.policies[i].style = {}; });
      }
      if (shrinkList((x) => x.ast.policies[i].annotations)) progress = true;
      if (shrinkList((x) => x.ast.policies[i].conditions)) progress = true;
      for (const v of ['principal', 'action', 'resource']) {
        if (p()[v].op !== 'all' && !p()[v].slot && attempt((cand) => { cand.ast.policies[i][v] = { op: 'all' }; })) progress = true;
      }
      // Replace an expression by one of its children, outermost first;
      // restart the walk after each success since paths shift.
      let again = true;
      while (again && tries < budget) {
        again = false;
        for (const path of exprPaths(p())) {
          const node = getPath(p(), path);
          for (const cp of childPaths(node)) {
            if (attempt((cand) => {
              const at = cand.ast.policies[i];
              setPath(at, path, getPath(getPath(at, path), cp));
            })) {
              again = true;
              progress = true;
              break;
            }
          }
          if (again) break;
          if (node.k === 'set' && shrinkList((x) => getPath(x.ast.policies[i], path).items)) progress = true;
          if (node.k === 'record' && shrinkList((x) => getPath(x.ast.policies[i], path).entries)) progress = true;
          if (node.k === 'is' && node.in && attempt((cand) => { getPath(cand.ast.policies[i], path).in = null; })) progress = true;
        }
      }
    }
  }
  return { case: best, tries };
}

module.exports = { minimize };
