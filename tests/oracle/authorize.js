#!/usr/bin/env node
// The oracle's command line: the same batch answers as
//   charter authorize --policies F --entities F --requests F --format jsonl
//                     [--template-linked F]
// computed by Cedar itself (cedar-wasm). One JSON line per request; on bad
// input one line {"error": "..."} and exit status 1.
'use strict';

const fs = require('fs');
const oracle = require('./lib/oracle');

function usage(message) {
  if (message) process.stderr.write(`authorize.js: ${message}\n`);
  process.stderr.write('usage: node authorize.js --policies FILE --entities FILE --requests FILE [--template-linked FILE]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const flags = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') usage();
    const m = /^--(policies|entities|requests|format|template-linked)(?:=(.*))?$/.exec(a);
    if (!m) usage(`unknown argument \`${a}\``);
    flags[m[1]] = m[2] !== undefined ? m[2] : argv[++i];
    if (flags[m[1]] === undefined) usage(`\`--${m[1]}\` needs a value`);
  }
  for (const k of ['policies', 'entities', 'requests']) if (!flags[k]) usage(`\`--${k}\` is required`);
  if (flags.format !== undefined && flags.format !== 'jsonl') usage('only `--format jsonl` is supported');
  return flags;
}

function fail(message) {
  process.stdout.write(`${JSON.stringify({ error: message })}\n`);
  process.exit(1);
}

function readJson(file, what) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    fail(`cannot read ${what} ${file}: ${e.message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    fail(`${file}: ${e.message}`);
  }
  return undefined;
}

function main() {
  const flags = parseArgs(process.argv.slice(2));
  let policies;
  try {
    policies = fs.readFileSync(flags.policies, 'utf8');
  } catch (e) {
    fail(`cannot read policies ${flags.policies}: ${e.message}`);
  }
  const entities = readJson(flags.entities, 'entities');
  const requests = readJson(flags.requests, 'requests');
  if (!Array.isArray(requests)) fail(`${flags.requests}: expected a JSON array of requests`);
  const links = flags['template-linked'] !== undefined ? readJson(flags['template-linked'], 'template links') : [];
  if (!Array.isArray(links)) fail(`${flags['template-linked']}: expected a JSON array of links`);
  const result = oracle.authorizeBatch(policies, entities, requests, links);
  if (result.error !== undefined) fail(result.error);
  process.stdout.write(result.answers.map((a) => `${JSON.stringify(a)}\n`).join(''));
}

main();
