#!/bin/bash
# Runs kubernetes-indexed-job.yaml from a CI job that has kubectl and a
# bundle (docs/ci.md, "Kubernetes"):
#
#   kubernetes-run.sh BUNDLE.tar OUT_DIR [BASE.json]
#
# Creates the volumes and the kernel-bench-io pod, copies the bundle (and
# BASE.json, the main branch's merged report, for --shard-balance and the
# comparison) onto the volumes, starts the Indexed Job, waits until it
# completes or fails, runs the gate (kb-gate) in kernel-bench-io and copies
# the merged report to OUT_DIR (which must not exist yet). Exits with the gate's code (gate.sh). The
# resources stay for inspection; `kubectl delete -f kubernetes-indexed-job.yaml`
# removes them.
#
# Environment: KB_NAMESPACE (default: kubectl's current one), KB_TIMEOUT for
# each wait (default 2h), KB_MANIFEST (default: the file beside this script).
# Needs bash 5.1 or later (wait -n with process IDs).
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: kubernetes-run.sh BUNDLE.tar OUT_DIR [BASE.json]" >&2
  exit 2
fi
bundle=$1
out=$2
base=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
manifest=${KB_MANIFEST:-$here/kubernetes-indexed-job.yaml}
timeout=${KB_TIMEOUT:-2h}
job=kernel-bench-shards
io=kernel-bench-io
k=(kubectl)
if [ -n "${KB_NAMESPACE:-}" ]; then
  k+=(--namespace "$KB_NAMESPACE")
fi

# The volumes and the pod that reads and writes them.
"${k[@]}" apply -f "$manifest" -l kernel-bench/part=storage
"${k[@]}" wait --for=condition=Ready "pod/$io" --timeout=10m
# A previous run's shards must not be merged into this one.
"${k[@]}" exec "$io" -- sh -c 'rm -rf /results/shard-* /results/merged /results/baseline'
"${k[@]}" cp "$bundle" "$io:/bundle/bundle.tar"
if [ -n "$base" ]; then
  "${k[@]}" exec "$io" -- mkdir -p /results/baseline
  "${k[@]}" cp "$base" "$io:/results/baseline/bench.json"
fi

# The shards: a Job's pod template cannot change, so start a new one.
"${k[@]}" delete job "$job" --ignore-not-found --wait=true
"${k[@]}" apply -f "$manifest" -l kernel-bench/part=bench
count=$("${k[@]}" get job "$job" -o jsonpath='{.spec.completions}')

# The Job ends Complete (every index succeeded) or Failed (an index failed
# past backoffLimitPerIndex, more than maxFailedIndexes failed, a FailJob
# rule, the deadline): wait for whichever comes first.
"${k[@]}" wait --for=condition=complete "job/$job" --timeout="$timeout" &
complete=$!
"${k[@]}" wait --for=condition=failed "job/$job" --timeout="$timeout" &
failed=$!
waited=0
wait -n "$complete" "$failed" || waited=$?
kill "$complete" "$failed" 2>/dev/null || true
wait "$complete" "$failed" 2>/dev/null || true
if [ "$waited" -ne 0 ]; then
  echo "kubernetes-run.sh: job/$job did not finish within $timeout" >&2
fi
"${k[@]}" get job "$job" -o wide
failed_indexes=$("${k[@]}" get job "$job" -o jsonpath='{.status.failedIndexes}')
if [ -n "$failed_indexes" ]; then
  echo "kubernetes-run.sh: failed indexes: $failed_indexes (the gate says why)" >&2
fi

# The gate, on what the shards left (a shard with no exit-code failed).
rc=0
"${k[@]}" exec "$io" -- env KB_SHARD_COUNT="$count" \
  kb-gate /results /results/merged /results/baseline/bench.json || rc=$?
"${k[@]}" cp "$io:/results/merged" "$out" || true
exit "$rc"
