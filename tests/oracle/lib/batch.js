// Charter's side of a case through charter_oracle_batch (charter_batch.cc):
// one long-lived process, cases written to its standard input and answered
// in order, so that the campaign pays for neither a process start nor files
// per case. The answers have the shape runCharter gives: {answers} or
// {error}.
'use strict';

const { spawn } = require('child_process');

class CharterBatch {
  constructor(binary) {
    this.binary = binary;
    this.pending = [];
    this.buffer = '';
    this.start();
  }

  start() {
    const child = spawn(this.binary, [], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.child = child;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      this.buffer += chunk;
      this.drain();
    });
    child.on('exit', (code, signal) => {
      if (this.child !== child) return;
      // Every case in flight dies with the process; the campaign reports
      // them (and checks each again through the CLI), then goes on with a
      // fresh process.
      const lost = this.pending;
      this.pending = [];
      this.buffer = '';
      this.child = null;
      for (const p of lost) p.resolve({ error: `charter_oracle_batch died (${signal || code})` });
      if (!this.closing) this.start();
    });
    child.stdin.on('error', () => {});
  }

  // Complete answers at the front of the buffer go to the oldest cases.
  drain() {
    for (;;) {
      const nl = this.buffer.indexOf('\n');
      if (nl < 0 || !this.pending.length) return;
      const head = this.buffer.slice(0, nl);
      if (head.startsWith('error ')) {
        this.buffer = this.buffer.slice(nl + 1);
        this.pending.shift().resolve({ error: head.slice(6) });
        continue;
      }
      const m = /^ok (\d+)$/.exec(head);
      if (!m) {
        this.buffer = this.buffer.slice(nl + 1);
        this.pending.shift().resolve({ error: `unreadable output line: ${head}` });
        continue;
      }
      const n = Number(m[1]);
      const lines = [];
      let at = nl + 1;
      for (let i = 0; i < n; i++) {
        const end = this.buffer.indexOf('\n', at);
        if (end < 0) return;  // the rest has not arrived yet
        lines.push(this.buffer.slice(at, end));
        at = end + 1;
      }
      this.buffer = this.buffer.slice(at);
      const { resolve, expected } = this.pending.shift();
      try {
        const answers = lines.map((l) => JSON.parse(l));
        resolve(answers.length === expected ? { answers }
          : { error: `${answers.length} answers for ${expected} requests`, answers });
      } catch (e) {
        resolve({ error: `unreadable output: ${e.message}` });
      }
    }
  }

  authorize(c) {
    return new Promise((resolve) => {
      const parts = [c.policies, JSON.stringify(c.entities), JSON.stringify(c.requests),
        c.links && c.links.length ? JSON.stringify(c.links) : ''].map((s) => Buffer.from(s, 'utf8'));
      this.pending.push({ resolve, expected: c.requests.length });
      this.child.stdin.write(`case ${parts.map((b) => b.length).join(' ')}\n`);
      for (const b of parts) this.child.stdin.write(b);
    });
  }

  close() {
    this.closing = true;
    if (this.child) this.child.stdin.end();
  }
}

module.exports = { CharterBatch };
