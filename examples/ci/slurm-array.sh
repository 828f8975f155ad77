#!/bin/bash
# One shard per array task: Slurm sets SLURM_ARRAY_TASK_ID, _MIN, _MAX,
# _STEP and _COUNT; kernel-bench turns them into shard (ID - MIN) / STEP of
# COUNT. Use a regular range (0-2, or 0-10:5): a sparse array such as
# --array=1,6-7 is refused. Submit it, then merge once every task is done:
#
#   jobid=$(sbatch --parsable examples/ci/slurm-array.sh bundle.tar results)
#   sbatch --dependency=afterany:$jobid --wrap \
#     "kernel-bench merge results/shard-*/bench.json -o results/merged"
#
#SBATCH --job-name=kernel-bench
#SBATCH --array=0-2
#SBATCH --gres=gpu:1
#SBATCH --time=00:30:00
#SBATCH --output=kernel-bench-%A_%a.log
set -euo pipefail

bundle=${1:?usage: slurm-array.sh BUNDLE.tar RESULTS_DIR}
results=${2:?usage: slurm-array.sh BUNDLE.tar RESULTS_DIR}

# Exit 1 (an INCORRECT or ERROR kernel) still leaves a complete report; the
# merge and the gate decide what fails.
rc=0
kernel-bench bench "$bundle" -o "$results/shard-$SLURM_ARRAY_TASK_ID" || rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
  exit "$rc"
fi
