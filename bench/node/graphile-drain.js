#!/usr/bin/env node
// graphile-worker draining J no-op jobs with concurrency C on a given database: the peer of the
// job-cycle benchmark (bench/pipeline.sh). Installs graphile-worker's schema, adds the jobs in
// bulk (addJobs), then starts a runner and times from the first "job:start" to the J-th
// "job:complete". graphile-worker's defaults are kept (one get_job and one complete_job per job:
// no localQueue, no completeJobBatchDelay), except that per-job logging is switched off and
// maxPoolSize follows graphile's own advice, max(10, concurrency + 2).
//
// With a warm-up count W, the runner first drains W jobs (untimed, in the same process, so V8 has
// compiled its code as the Java app's JIT has after its own warm-up), then the J timed ones.
//
// usage: node graphile-drain.js <connection string> <jobs> <concurrency> [warm-up jobs]
// prints one JSON line: {jobs, concurrency, maxPoolSize, seconds, rate, startupMs, warmup, version}
"use strict";

const { EventEmitter } = require("events");
const { run, runMigrations, makeWorkerUtils, Logger } = require("graphile-worker");

async function main() {
  const [connectionString, jobsArg, concurrencyArg, warmupArg] = process.argv.slice(2);
  const jobs = Number.parseInt(jobsArg, 10);
  const concurrency = Number.parseInt(concurrencyArg, 10);
  const warmup = warmupArg === undefined ? 0 : Number.parseInt(warmupArg, 10);
  if (!connectionString || !(jobs > 0) || !(concurrency > 0) || !(warmup >= 0)) {
    console.error("usage: node graphile-drain.js <connection string> <jobs> <concurrency> [warm-up jobs]");
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
  } finally {
    await utils.release();
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
  });
  const finished = await done;
  clearTimeout(timeout);
  await runner.stop();

  const seconds = (finished - firstStart) / 1000;
  const version = require("graphile-worker/package.json").version;
  console.log(JSON.stringify({
    jobs, concurrency, maxPoolSize, failed, seconds, rate: jobs / seconds,
    startupMs: launchedAt - launched, warmup, version,
  }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
