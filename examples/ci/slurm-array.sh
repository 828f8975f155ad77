#!/bin/bash
# Kernel Workbench on Slurm (docs/ci.md, "Slurm"): one shard per array task,
# then a gate job that depends on the whole array. On a login node, with
# BUNDLE.tar and RESULTS_DIR on a file system the compute nodes share:
#
#   examples/ci/slurm-array.sh BUNDLE.tar RESULTS_DIR [BASE.json]
#
# submits this script as the array (one GPU per task) and then the gate
# (merge + compare, kb-gate; no GPU) with --dependency=afterany:ARRAY_ID, so
# it runs whatever the tasks' exit codes. It prints both job IDs. With
# KB_WAIT=1 it waits for the gate (sbatch --wait) and exits with the gate's
# code (gate.sh) — what a CI job that drives Slurm wants.
#
# Slurm sets SLURM_ARRAY_TASK_ID, _MIN, _STEP and _COUNT in each task;
# kernel-bench turns them into shard (ID - MIN) / STEP of COUNT. Use a regular
# range (0-2, or 0-10:5): a sparse array such as --array=1,6-7 is refused.
#
# Environment (login node): KB_SHARDS (default 3: --array=0-2),
# KB_BENCH_SBATCH_FLAGS and KB_GATE_SBATCH_FLAGS (more sbatch flags for the
# array and the gate, e.g. "--partition=gpu --account=perf"), KB_WAIT.
# kb-bench-shard, kb-gate and kernel-bench come from PATH (a module, or the
# runtime image through your container plugin); bench-shard.sh and gate.sh
# beside this script are used when kb-bench-shard and kb-gate are not found.
#
#SBATCH --job-name=kernel-bench
#SBATCH --array=0-2
#SBATCH --gres=gpu:1
#SBATCH --time=00:30:00
#SBATCH --output=kernel-bench-%A_%a.log
set -euo pipefail

usage="usage: slurm-array.sh BUNDLE.tar RESULTS_DIR [BASE.json]"

# In an array task: bench this task's shard. (Slurm runs a copy of this
# script, so paths come from the arguments and KB_BENCH_SHARD.)
if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
  bundle=${1:?$usage}
  results=${2:?$usage}
  index=$(( (SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-0}) / ${SLURM_ARRAY_TASK_STEP:-1} ))
  export KB_SHARD_BALANCE=${KB_SHARD_BALANCE:-$results/baseline/bench.json}
  # The exit code goes to sacct as it is (77: no device on this node); the
  # gate reads each shard's exit-code file.
  exec "${KB_BENCH_SHARD:-kb-bench-shard}" "$bundle" "$results/shard-$index"
fi

# On the login node: submit the array and the gate.
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "$usage" >&2
  exit 2
fi
bundle=$(realpath "$1")
results=$(realpath -m "$2")
base=${3:-}
shards=${KB_SHARDS:-3}
if ! [[ $shards =~ ^[1-9][0-9]*$ ]]; then
  echo "slurm-array.sh: KB_SHARDS must be a positive number (got '$shards')" >&2
  exit 2
fi
self=$(realpath "$0")
here=$(dirname "$self")
bench_shard=$(command -v kb-bench-shard || echo "$here/bench-shard.sh")
gate=$(command -v kb-gate || echo "$here/gate.sh")
read -r -a bench_flags <<< "${KB_BENCH_SBATCH_FLAGS:-}"
read -r -a gate_flags <<< "${KB_GATE_SBATCH_FLAGS:-}"

# A previous run's shards must not be merged into this one.
mkdir -p "$results"
rm -rf "$results"/shard-* "$results/merged" "$results/baseline"
if [ -n "$base" ]; then
  mkdir -p "$results/baseline"
  cp "$base" "$results/baseline/bench.json"
fi

# --parsable prints "ID" or, on a multi-cluster set-up, "ID;CLUSTER".
submitted=$(sbatch --parsable "${bench_flags[@]}" --array="0-$((shards - 1))" \
  --export=ALL,KB_BENCH_SHARD="$bench_shard" "$self" "$bundle" "$results")
array_id=${submitted%%;*}
if ! [[ $array_id =~ ^[0-9]+$ ]]; then
  echo "slurm-array.sh: unexpected sbatch output: $submitted" >&2
  exit 1
fi
echo "array job $array_id: $shards shard(s), logs kernel-bench-${array_id}_INDEX.log"

# The gate: no GPU, no #SBATCH lines of this script (--wrap), after every
# task has ended however it ended (afterany).
gate_command=$(printf '%q ' env KB_SHARD_COUNT="$shards" "$gate" \
  "$results" "$results/merged" "$results/baseline/bench.json")
wait_flag=()
if [ "${KB_WAIT:-0}" = 1 ]; then
  wait_flag=(--wait)
fi
rc=0
submitted=$(sbatch --parsable "${wait_flag[@]}" "${gate_flags[@]}" \
  --dependency="afterany:$array_id" --kill-on-invalid-dep=yes \
  --job-name=kernel-bench-gate --output="$results/gate-%j.log" \
  --wrap "$gate_command") || rc=$?
gate_id=${submitted%%;*}
echo "gate job $gate_id: merged report in $results/merged, log $results/gate-$gate_id.log"
exit "$rc"
