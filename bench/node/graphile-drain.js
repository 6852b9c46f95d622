#!/usr/bin/env node
// graphile-worker draining J no-op jobs with concurrency C on a given database: the peer of the
// job-cycle benchmark (bench/pipeline.sh). Installs graphile-worker's schema, adds the jobs in
// bulk (addJobs), then starts a runner and times from the first "job:start" to the J-th
// "job:complete" once no job is left in the table. (graphile-worker emits "job:complete" before
// its complete_job has committed, and does not wait for it before taking the next job; the wait
// at the end counts the last deletes, which a batched completion would otherwise leave out.)
// Per-job logging is switched off and maxPoolSize follows graphile's own advice,
// max(10, concurrency + 2). The mode says what else is set:
//
//   defaults                  graphile-worker's defaults: one get_job and one complete_job per
//                             job (no localQueue, completeJobBatchDelay = -1);
//   batched[:SIZE[:DELAY]]    its batched mode (0.17, preset.worker): localQueue = { size: SIZE }
//                             (the pool fetches and locks up to SIZE jobs at once and hands them to
//                             its workers) and completeJobBatchDelay = failJobBatchDelay = DELAY ms
//                             (completions within DELAY ms are deleted in one statement). Without
//                             SIZE and DELAY: 500 and 0, the configuration of graphile-worker's
//                             own performance page (worker.graphile.org/docs/performance).
//
// With a warm-up count W, the runner first drains W jobs (untimed, in the same process, so V8 has
// compiled its code as the Java app's JIT has after its own warm-up), then the J timed ones. (Batched,
// up to SIZE of the timed jobs may already be in the local queue when the warm-up's last one completes.)
//
// usage: node graphile-drain.js <connection string> <jobs> <concurrency> [warm-up jobs] [mode]
// prints one JSON line: {jobs, concurrency, maxPoolSize, mode, localQueueSize, completeJobBatchDelay,
//   failed, seconds, rate, lagMs, startupMs, warmup, version}
"use strict";

const { EventEmitter } = require("events");
const { run, runMigrations, makeWorkerUtils, Logger } = require("graphile-worker");

const USAGE = "usage: node graphile-drain.js <connection string> <jobs> <concurrency> [warm-up jobs]"
  + " [defaults | batched[:<localQueue size>[:<completeJobBatchDelay ms>]]]";

/** The preset.worker options of a mode, or null when the mode is not understood. */
function modeOptions(mode) {
  if (mode === "defaults") {
    return { localQueueSize: -1, completeJobBatchDelay: -1, worker: {} };
  }
  const m = /^batched(?::(\d+))?(?::(\d+))?$/.exec(mode);
  if (!m) return null;
  const size = m[1] === undefined ? 500 : Number.parseInt(m[1], 10);
  const delay = m[2] === undefined ? 0 : Number.parseInt(m[2], 10);
  if (!(size >= 1)) return null;
  return {
    localQueueSize: size,
    completeJobBatchDelay: delay,
    worker: { localQueue: { size }, completeJobBatchDelay: delay, failJobBatchDelay: delay },
  };
}

async function main() {
  const [connectionString, jobsArg, concurrencyArg, warmupArg, modeArg] = process.argv.slice(2);
  const jobs = Number.parseInt(jobsArg, 10);
  const concurrency = Number.parseInt(concurrencyArg, 10);
  const warmup = warmupArg === undefined ? 0 : Number.parseInt(warmupArg, 10);
  const mode = modeArg === undefined ? "defaults" : modeArg;
  const options = modeOptions(mode);
  if (!connectionString || !(jobs > 0) || !(concurrency > 0) || !(warmup >= 0) || !options) {
    console.error(USAGE);
    process.exit(2);
  }
  const logger = new Logger(() => () => {}); // no per-job console output
  const maxPoolSize = Math.max(10, concurrency + 2);
  const common = { connectionString, logger };

  await runMigrations(common);
  const utils = await makeWorkerUtils(common);
  try {
    for (let added = 0; added < warmup + jobs; added += 1000) {
      const n = Math.min(1000, warmup + jobs - added);
      await utils.addJobs(Array.from({ length: n }, () => ({ identifier: "noop", payload: {} })));
    }

    const events = new EventEmitter();
    let firstStart = 0;
    let completed = 0;
    let failed = 0;
    let resolveDone;
    const done = new Promise((resolve) => (resolveDone = resolve));
    let launchedAt = 0;
    events.on("job:start", () => {
      if (launchedAt === 0) launchedAt = performance.now();
      if (warmup === 0 && firstStart === 0) firstStart = performance.now();
    });
    events.on("job:complete", ({ error }) => {
      if (error) failed++;
      completed++;
      if (warmup > 0 && completed === warmup) firstStart = performance.now(); // the timed jobs start here
      if (completed === warmup + jobs) resolveDone(performance.now());
    });

    const launched = performance.now();
    const timeout = setTimeout(() => {
      console.error(`graphile-worker did not drain ${warmup + jobs} jobs in 120 s (${completed} done)`);
      process.exit(1);
    }, 120_000);
    const runner = await run({
      ...common,
      concurrency,
      maxPoolSize,
      noHandleSignals: true,
      pollInterval: 2000,
      events,
      taskList: { noop: async () => {} },
      preset: { worker: options.worker },
    });
    const lastComplete = await done;
    // the drain ends when the last completions are in the table too (a completed job is deleted)
    let left;
    do {
      left = await utils.withPgClient(async (client) =>
        Number((await client.query("select count(*) as n from graphile_worker._private_jobs")).rows[0].n));
    } while (left > 0 && performance.now() - lastComplete < 10_000);
    const finished = performance.now();
    clearTimeout(timeout);
    await runner.stop();
    if (left > 0) {
      console.error(`${left} jobs still in graphile_worker._private_jobs 10 s after the last job:complete (${failed} failed)`);
      process.exit(1);
    }

    const seconds = (finished - firstStart) / 1000;
    const version = require("graphile-worker/package.json").version;
    console.log(JSON.stringify({
      jobs, concurrency, maxPoolSize, mode, localQueueSize: options.localQueueSize,
      completeJobBatchDelay: options.completeJobBatchDelay, failed, seconds, rate: jobs / seconds,
      lagMs: finished - lastComplete, startupMs: launchedAt - launched, warmup, version,
    }));
  } finally {
    await utils.release();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
