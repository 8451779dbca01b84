// The generator's construct families. Each family sits behind one name so a
// campaign can be restricted to what Charter compiles today
// (tests/oracle/features.txt holds that list).
'use strict';

const fs = require('fs');
const path = require('path');

const FEATURES = {
  scope: 'scope constraints: ==, in, is, is-in (with `is`), action in [list]',
  logic: '&&, ||, !, if-then-else',
  eq: '==, !=',
  in: '`in` with an entity or a set on the right (set literals also need `sets`)',
  has: '`has` with an identifier, a string, and extended a.b.c paths',
  attr: 'attribute access .a and ["a"]',
  literals: 'bool, long, string and entity literals',
  arith: '+, -, *, unary -, with overflow',
  compare: '<, <=, >, >=',
  sets: 'set literals, contains, containsAll, containsAny, isEmpty',
  records: 'record literals',
  like: '`like` patterns with wildcards and \\* escapes',
  is: '`is` tests and `is ... in`, in conditions and (with `scope`) in the scope',
  tags: 'hasTag, getTag, and entity tags in the store',
  ip: 'ip() and its methods; ipaddr values in data',
  decimal: 'decimal() and its methods; decimal values in data',
  datetime: 'datetime() and its methods; datetime values in data',
  duration: 'duration() and its methods; duration values in data',
  templates: 'templates with ?principal / ?resource slots, and their links (--template-linked)',
  unless: '`unless` clauses',
  'ext-arity': 'in a few cases: extension functions and methods called with the wrong number of arguments',
  'ext-malformed': 'in a few cases: malformed extension literals, overflowing datetime and duration strings and arithmetic',
  'ext-wrongtype': 'in a few cases: extension methods and functions called on values of the wrong type; < on decimals and ipaddrs',
  links: 'in a few cases: template links to undeclared, action and enum-violating entities, and links Cedar refuses',
};

const ALL = Object.keys(FEATURES);

// Parses "a,b,c", "all", or "@FILE" (one name a line, `#` comments).
function parseFeatures(spec) {
  if (spec === undefined || spec === null || spec === '' || spec === 'all') return new Set(ALL);
  let text = spec;
  if (spec.startsWith('@')) text = readFeatureFile(spec.slice(1)).join(',');
  const names = text.split(/[\s,]+/).filter((s) => s.length > 0);
  for (const n of names) {
    if (!Object.prototype.hasOwnProperty.call(FEATURES, n)) {
      throw new Error(`unknown feature \`${n}\` (known: ${ALL.join(', ')})`);
    }
  }
  return new Set(names);
}

function readFeatureFile(file) {
  return fs.readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter((l) => l.length > 0);
}

const DEFAULT_FILE = path.join(__dirname, '..', 'features.txt');

module.exports = { FEATURES, ALL, parseFeatures, readFeatureFile, DEFAULT_FILE };
