// A pool of child processes answering batches with the oracle, so that the
// campaigns use every core (cedar-wasm's per-request entity parsing is the
// authorization campaign's bottleneck, its validator the validation
// campaign's). A job names one of the METHODS below and its arguments.
//
// Node 20's V8 now and then dies with "Fatal error ... unreachable code" in
// Deoptimizer::DoComputeBuiltinContinuation after a few hundred batches in
// one process (worker threads and child processes alike). So the children
// run with --no-opt (no optimised JavaScript, hence no deoptimisation; the
// work is in wasm, the cost about 5%), each is replaced after
// RECYCLE_AFTER batches, and a child that dies anyway is replaced and its
// batch retried once: a crash costs a restart, not the campaign.
'use strict';

const { fork } = require('child_process');

const MAX_ATTEMPTS = 2;
const RECYCLE_AFTER = 250;

class OraclePool {
  constructor(size) {
    this.workers = [];
    this.idle = [];
    this.queue = [];
    this.nextId = 0;
    this.closing = false;
    for (let i = 0; i < size; i++) this.spawn();
  }

  spawn() {
    const w = fork(__filename, ['--oracle-worker'],
      { execArgv: ['--no-opt'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    w.job = null;
    w.done = 0;
    w.retired = false;
    w.on('message', ({ id, result }) => {
      const job = w.job;
      w.job = null;
      if (job === null || job.id !== id) return;
      w.done++;
      if (w.done >= RECYCLE_AFTER && !this.closing) {
        w.retired = true;
        this.workers = this.workers.filter((x) => x !== w);
        w.disconnect();
        this.spawn();
      } else if (!this.closing) {
        this.idle.push(w);
      }
      this.pump();
      job.resolve(result);
    });
    w.on('exit', (code, signal) => {
      this.workers = this.workers.filter((x) => x !== w);
      this.idle = this.idle.filter((x) => x !== w);
      const job = w.job;
      w.job = null;
      if (this.closing || (w.retired && job === null)) return;
      if (job !== null) {
        if (job.attempts < MAX_ATTEMPTS) {
          process.stderr.write(`oracle process died (${signal || code}); retrying its batch\n`);
          this.queue.unshift(job);
        } else {
          job.resolve({ error: `oracle process died (${signal || code}) ${job.attempts} times on this batch` });
        }
      }
      this.spawn();
      this.pump();
    });
    this.workers.push(w);
    this.idle.push(w);
  }

  // Resolves to oracle.authorizeBatch(policies, entities, requests, links).
  authorizeBatch(policies, entities, requests, links) {
    return this.call('authorizeBatch', [policies, entities, requests, links]);
  }

  // Resolves to METHODS[method](...args), or {error} when the oracle process
  // died on it twice.
  call(method, args) {
    return new Promise((resolve) => {
      this.queue.push({ id: this.nextId++, method, args, resolve, attempts: 0 });
      this.pump();
    });
  }

  pump() {
    while (this.idle.length && this.queue.length) {
      const w = this.idle.pop();
      const job = this.queue.shift();
      job.attempts++;
      w.job = job;
      w.send({ id: job.id, method: job.method, args: job.args });
    }
  }

  close() {
    this.closing = true;
    for (const w of this.workers) w.disconnect();
    return Promise.resolve();
  }
}

if (require.main === module && process.argv[2] === '--oracle-worker') {
  const METHODS = {
    authorizeBatch: (...a) => require('./oracle').authorizeBatch(...a),
    validateBatch: (...a) => require('./validation').validateBatch(...a),
    schemaDataBatch: (...a) => require('./schema_data').schemaDataBatch(...a),
  };
  process.on('message', ({ id, method, args }) => {
    let result;
    try {
      result = METHODS[method](...args);
    } catch (e) {
      // A wasm trap leaves the instance unusable: answer, then make way for
      // a fresh process.
      process.send({ id, result: { error: `oracle threw: ${e.message}` } }, () => process.exit(1));
      return;
    }
    process.send({ id, result });
  });
  process.on('disconnect', () => process.exit(0));
}

module.exports = { OraclePool };
