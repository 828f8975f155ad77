#!/usr/bin/env bash
# The bundled copy kernel (kernels/copy) swept over 2^10..2^24 elements
# (tests/e2e/fixtures/sweep): build, bench every size, and print per size the
# candidate's and the reference's (the compiler's own copy, measured in the
# same run) median and GB/s and their ratio; report.html draws them.
#
# usage: bench/sweep_copy/sweep_copy.sh KERNEL_BENCH [OUT_DIR] [bench flags...]
#   e.g. bench/sweep_copy/sweep_copy.sh build/workbench/kernel-bench /tmp/sweep --quick
set -euo pipefail
if [[ $# -lt 1 ]]; then
  sed -n '2,9p' "$0" >&2
  exit 2
fi
kernel_bench=$1
out=${2:-$(mktemp -d -t kb-sweep-copy.XXXXXX)}
shift $(($# >= 2 ? 2 : 1))
root=$(cd "$(dirname "$0")/../.." && pwd)

"$kernel_bench" build "$root/tests/e2e/fixtures/sweep" -o "$out/build"
"$kernel_bench" bench "$out/build" -o "$out/results" "$@"
python3 - "$out/results/bench.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print("%12s %14s %14s %10s %10s %7s" % ("n", "candidate ns", "reference ns",
                                         "cand GB/s", "ref GB/s", "ref/cand"))
rows = []
for b in report["benchmarks"]:
    first = {}
    for v in b["variants"]:
        if v["timings"]:
            first[v["role"]] = v["timings"][0]["summary"]["median"], v["timings"][0]
    if "candidate" not in first or "reference" not in first:
        continue
    n = b["sweep"]["values"]["n"]
    (c, ct), (r, rt) = first["candidate"], first["reference"]
    gb = lambda t: t.get("derived", {}).get("gb_per_s")
    rows.append((n, c, r, gb(ct), gb(rt)))
for n, c, r, cg, rg in sorted(rows):
    print("%12d %14.0f %14.0f %10s %10s %7.2f" % (
        n, c, r, "%.2f" % cg if cg else "-", "%.2f" % rg if rg else "-", r / c))
PY
echo "report: $out/results/report.html"
