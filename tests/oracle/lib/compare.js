// Runs Charter on a case (one process per policy set, all requests in one
// batch) and compares its answers with the oracle's: decision, reasons as a
// set, and the ids of erroring policies as a set. Messages are not compared.
'use strict';

const fs = require('fs');
const path = require('path');
const { execFile, spawnSync } = require('child_process');
const oracle = require('./oracle');

const CHARTER_TIMEOUT_MS = 60000;

// Writes the input files of a case into dir (links.json only when the case
// has template links).
function writeCase(dir, c) {
  fs.mkdirSync(dir, { recursive: true });
  const files = {
    policies: path.join(dir, 'policies.cedar'),
    entities: path.join(dir, 'entities.json'),
    requests: path.join(dir, 'requests.json'),
  };
  fs.writeFileSync(files.policies, c.policies);
  fs.writeFileSync(files.entities, JSON.stringify(c.entities));
  fs.writeFileSync(files.requests, JSON.stringify(c.requests));
  if (c.links && c.links.length) {
    files.links = path.join(dir, 'links.json');
    fs.writeFileSync(files.links, JSON.stringify(c.links));
  }
  return files;
}

function charterArgs(files) {
  const args = ['authorize', '--policies', files.policies, '--entities', files.entities,
    '--requests', files.requests, '--format', 'jsonl'];
  if (files.links) args.push('--template-linked', files.links);
  return args;
}

// Turns Charter's exit status and output into {answers} or {error}.
function charterResult(status, stdout, stderr, expected) {
  if (status !== 0) {
    const why = status === null ? 'killed (crash or timeout)' : `exit status ${status}`;
    return { error: `${why}: ${String(stderr).trim() || '(no message)'}` };
  }
  const lines = String(stdout).split('\n').filter((l) => l.length > 0);
  const answers = [];
  for (const l of lines) {
    try {
      answers.push(JSON.parse(l));
    } catch (e) {
      return { error: `unreadable output line: ${l}` };
    }
  }
  if (answers.length !== expected) {
    return { error: `${answers.length} answers for ${expected} requests`, answers };
  }
  return { answers };
}

function runCharterSync(charter, files, expected) {
  const r = spawnSync(charter, charterArgs(files), { encoding: 'utf8', timeout: CHARTER_TIMEOUT_MS, maxBuffer: 1 << 28 });
  if (r.error && r.error.code !== 'ETIMEDOUT') return { error: `cannot run ${charter}: ${r.error.message}` };
  const note = r.signal ? `${r.stderr}\n(signal ${r.signal})` : r.stderr;
  return charterResult(r.status, r.stdout, note, expected);
}

function runCharter(charter, files, expected) {
  return new Promise((resolve) => {
    execFile(charter, charterArgs(files), { encoding: 'utf8', timeout: CHARTER_TIMEOUT_MS, maxBuffer: 1 << 28 },
      (err, stdout, stderr) => {
        if (err && typeof err.code === 'string') {
          resolve({ error: `cannot run ${charter}: ${err.message}` });
          return;
        }
        const status = !err ? 0 : typeof err.code === 'number' ? err.code : null;
        const note = err && err.signal ? `${stderr}\n(signal ${err.signal})` : stderr;
        resolve(charterResult(status, stdout, note, expected));
      });
  });
}

function setKey(items) { return JSON.stringify([...new Set(items)].sort()); }

// Compares one request's answers. Returns null when they agree, else a
// short description of the first difference.
function compareAnswer(charter, cedar) {
  if (charter.decision !== cedar.decision) return `decision: charter ${charter.decision}, cedar ${cedar.decision}`;
  const cr = setKey(charter.reasons || []);
  const dr = setKey(cedar.reasons || []);
  if (cr !== dr) return `reasons: charter ${cr}, cedar ${dr}`;
  const ce = setKey((charter.errors || []).map((e) => e.policy));
  const de = setKey((cedar.errors || []).map((e) => e.policy));
  if (ce !== de) return `erroring policies: charter ${ce}, cedar ${de}`;
  return null;
}

// Compares whole-batch results. Returns {agree, kind, request, detail}:
// kind is 'charter-error' (Charter refused input Cedar accepts),
// 'cedar-error' (the reverse; a generator bug when the case is generated),
// or 'mismatch' (an answer differs, for request index `request`).
function compare(charter, cedar) {
  if (charter.error !== undefined && cedar.error !== undefined) {
    return { agree: true, kind: 'both-error', detail: `charter: ${charter.error}; cedar: ${cedar.error}` };
  }
  if (charter.error !== undefined) return { agree: false, kind: 'charter-error', detail: charter.error };
  if (cedar.error !== undefined) return { agree: false, kind: 'cedar-error', detail: cedar.error };
  for (let i = 0; i < cedar.answers.length; i++) {
    const d = compareAnswer(charter.answers[i], cedar.answers[i]);
    if (d !== null) return { agree: false, kind: 'mismatch', request: i, detail: d };
  }
  return { agree: true, kind: 'agree' };
}

// Runs both sides on a case synchronously (the minimiser and replay use it).
function runBoth(charterPath, dir, c) {
  const files = writeCase(dir, c);
  const charter = runCharterSync(charterPath, files, c.requests.length);
  const cedar = oracle.authorizeBatch(c.policies, c.entities, c.requests, c.links);
  return { charter, cedar, verdict: compare(charter, cedar) };
}

module.exports = { writeCase, runCharter, runCharterSync, compare, compareAnswer, runBoth };
