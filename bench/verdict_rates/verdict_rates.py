#!/usr/bin/env python3
"""The error rates of `kernel-bench compare` on real runs (bench/README.md).

Builds a one-dispatch saxpy project twice: build A with kernels/saxpy, build B
with saxpy_1_5x.comp (the same kernel doing its work 1.5 times, same result).
Each round runs `kernel-bench bench --quick` three times, A, A again and B, and
compares with compare's default settings:

  A/A        compare A1 A2: a false alarm when it exits 1 (target: at most 1
             of 20 rounds, 5 %)
  detection  compare A2 B: detected when it exits 1 with the candidate's rows
             SLOWER (target: at least 19 of 20 rounds, 95 %)

compare anchors by default (the reference kernel, the same object in all
three builds, corrects each candidate row for the drift between the runs);
--anchor none compares raw ratios, as compare did before anchoring.

--paired measures `bench --baseline` instead: each round runs `bench A
--baseline A` (A/A) and `bench B --baseline A` (detection), candidate and
baseline sampled in lockstep, and counts their paired verdicts the same way.

The rates are printed against their targets, with every round's verdicts and
the median slowdown B actually had. --keep DIR keeps the reports; --recompare
DIR compares kept reports again without measuring (e.g. after changing
compare's band), which is how the band's k was chosen.

--min-samples N passes N to bench (a smoke run: below compare's minimum of 10
samples every verdict must be INCONCLUSIVE, exit 0; --check fails otherwise).
Needs a kernel-bench with the compiler library, glslc and a Vulkan device
(lavapipe). Python >= 3.9, stdlib only.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
TARGET_FALSE_ALARMS = 0.05
TARGET_DETECTION = 0.95

WORKBENCH_TOML = """[project]
name = "verdict_rates"
program = "program.mlir"
kernels = ["saxpy"]
targets = ["vulkan:1.2"]
"""


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernel-bench", required=True, help="the kernel-bench binary")
    p.add_argument("--pairs", type=int, default=20, help="rounds (default 20)")
    p.add_argument("--keep", help="keep the builds and reports in this directory")
    p.add_argument("--recompare", help="compare the reports kept in this "
                   "directory again; measure nothing")
    p.add_argument("--paired", action="store_true",
                   help="measure bench --baseline's paired verdicts instead")
    p.add_argument("--anchor", choices=("reference", "medians", "none"),
                   default="reference",
                   help="compare's --anchor (default reference, compare's "
                        "default: pair by pair where the rounds pair up; "
                        "medians: anchored on medians only, the rule before "
                        "paired anchoring; none: raw ratios, as before "
                        "anchoring)")
    p.add_argument("--min-samples", type=int,
                   help="passed to bench (a smoke run below compare's minimum)")
    p.add_argument("--check", action="store_true",
                   help="exit 1 when a target is missed (with --min-samples: "
                   "when any verdict is not INCONCLUSIVE or compare does not "
                   "exit 0)")
    args = p.parse_args()
    if args.pairs < 1:
        p.error("--pairs must be at least 1")
    return args


def run(cmd, env=None, check=True):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True,
                          text=True, env=env)
    if check and proc.returncode != 0:
        sys.exit("verdict_rates: %s exited %d:\n%s%s" % (
            " ".join(map(str, cmd)), proc.returncode, proc.stdout, proc.stderr))
    return proc


def make_project(root, slow):
    """A one-dispatch project; |slow| substitutes saxpy_1_5x.comp."""
    root.mkdir(parents=True)
    (root / "workbench.toml").write_text(WORKBENCH_TOML)
    shutil.copy(HERE / "program.mlir", root / "program.mlir")
    shutil.copytree(REPO / "kernels" / "saxpy", root / "saxpy")
    if slow:
        shutil.copy(HERE / "saxpy_1_5x.comp", root / "saxpy" / "saxpy.comp")
    return root


def build(kb, work, env):
    for name, slow in (("a", False), ("b", True)):
        project = make_project(work / ("project-" + name), slow)
        run([kb, "build", project, "-o", work / ("build-" + name),
             "--target", "vulkan:1.2"], env=env)


def bench(kb, build_dir, out, args, env, baseline=None):
    cmd = [kb, "bench", build_dir, "--quick", "-o", out]
    if baseline:
        cmd += ["--baseline", baseline]
    if args.min_samples:
        cmd += ["--min-samples", str(args.min_samples)]
    proc = run(cmd, env=env, check=False)
    if proc.returncode not in (0, 1):
        sys.exit("verdict_rates: bench %s exited %d:\n%s" % (
            build_dir, proc.returncode, proc.stderr))
    return out / "bench.json"


ROW = re.compile(r"^\|\s*(\S+)\s*\|\s*([A-Z]+)")
# compare's table: benchmark | verdict | base | new | change | anchored | ...
CHANGE = re.compile(r"^\|\s*(\S+)\s*\|[^|]*\|[^|]*\|[^|]*\|"
                    r"\s*([+-][0-9.]+)%\s*\|\s*([^|]*?)\s*\|")
VERDICTS = ("SLOWER", "FASTER", "SAME", "INCONCLUSIVE", "ANCHOR")


def percent_or_none(text):
    return float(text[:-1]) if re.match(r"^[+-][0-9.]+%$", text) else None


def compare(kb, base, new, env, anchor):
    """(exit code, {row id: verdict}, {row id: (raw change %, anchored
    change % or None)})."""
    proc = run([kb, "compare", base, new, "--anchor", anchor], env=env,
               check=False)
    if proc.returncode not in (0, 1, 3, 5):
        sys.exit("verdict_rates: compare exited %d:\n%s" % (
            proc.returncode, proc.stderr))
    verdicts, changes = {}, {}
    for line in proc.stdout.splitlines():
        m = ROW.match(line)
        if m and m.group(2) in VERDICTS:
            verdicts[m.group(1)] = m.group(2)
        c = CHANGE.match(line)
        if c:
            changes[c.group(1)] = (float(c.group(2)),
                                   percent_or_none(c.group(3)))
    return proc.returncode, verdicts, changes


def measure(kb, work, args, env):
    """Runs every round into work/round-NN/{a1,a2,b} (--paired: {pa,pb})."""
    runs = (("pa", "a"), ("pb", "b")) if args.paired else (
        ("a1", "a"), ("a2", "a"), ("b", "b"))
    for i in range(args.pairs):
        round_dir = work / ("round-%02d" % i)
        start = time.monotonic()
        for name, build_name in runs:
            bench(kb, work / ("build-" + build_name), round_dir / name, args,
                  env, work / "build-a" if args.paired else None)
        print("round %d/%d measured in %.1f s" % (
            i + 1, args.pairs, time.monotonic() - start), flush=True)


def paired(report_path):
    """bench --baseline's verdicts as compare's: (exit code, verdicts, %)."""
    with open(report_path) as f:
        report = json.load(f)
    verdicts, changes = {}, {}
    for b in report["benchmarks"]:
        for p in b.get("paired", []):
            key = "%s/candidate/%s" % (b["name"], p["mode"])
            verdicts[key] = p["verdict"]
            changes[key] = (100 * (p["ratio"] - 1), None)
    code = 1 if "SLOWER" in verdicts.values() else 0
    return code, verdicts, changes


def candidate_rows(verdicts):
    return {k: v for k, v in verdicts.items() if "/candidate/" in k}


def judge(kb, work, env, anchor):
    """Compares every kept round; returns (A/A rows, detection rows)."""
    aa, det = [], []
    for round_dir in sorted(work.glob("round-*")):
        pa, pb = round_dir / "pa" / "bench.json", round_dir / "pb" / "bench.json"
        if pa.exists() and pb.exists():
            aa.append(paired(pa))
            det.append(paired(pb))
            continue
        a1, a2, b = (round_dir / n / "bench.json" for n in ("a1", "a2", "b"))
        if not (a1.exists() and a2.exists() and b.exists()):
            continue
        aa.append(compare(kb, a1, a2, env, anchor))
        det.append(compare(kb, a2, b, env, anchor))
    return aa, det


def summary_line(code, verdicts):
    return "exit %d: %s" % (code, ", ".join(
        "%s %s" % (k, v) for k, v in sorted(verdicts.items())))


def report(aa, det, args):
    for i, ((ca, va, _), (cd, vd, _)) in enumerate(zip(aa, det)):
        print("round %2d  A/A %s" % (i, summary_line(ca, va)))
        print("          A/B %s" % summary_line(cd, vd))
    n = len(aa)
    alarms = sum(1 for code, _, _ in aa if code == 1)
    detected = sum(1 for code, v, _ in det
                   if code == 1 and any(x == "SLOWER" for x in
                                        candidate_rows(v).values()))
    print()
    for what, rows in (("A/A", aa), ("A/B", det)):
        raw = [c[0] for _, _, ch in rows for k, c in ch.items()
               if "/candidate/" in k]
        anchored = [c[1] for _, _, ch in rows for k, c in ch.items()
                    if "/candidate/" in k and c[1] is not None]
        drift = [abs(c[0]) for _, v, ch in rows for k, c in ch.items()
                 if v.get(k) == "ANCHOR"]
        if raw:
            print("%s candidate rows: median change %+.1f%% (%d rows)%s%s"
                  % (what, statistics.median(raw), len(raw),
                     "; anchored %+.1f%% (%d rows)" % (
                         statistics.median(anchored), len(anchored))
                     if anchored else "",
                     "; median |drift| %.1f%%, largest %.1f%%" % (
                         statistics.median(drift), max(drift))
                     if drift else ""))
    print("A/A false alarms (exit 1): %d of %d = %.0f%%  (target <= %.0f%%: %s)"
          % (alarms, n, 100 * alarms / n, 100 * TARGET_FALSE_ALARMS,
             "met" if alarms <= TARGET_FALSE_ALARMS * n else "NOT met"))
    print("1.5x detected as SLOWER:   %d of %d = %.0f%%  (target >= %.0f%%: %s)"
          % (detected, n, 100 * detected / n, 100 * TARGET_DETECTION,
             "met" if detected >= TARGET_DETECTION * n else "NOT met"))
    if args.min_samples:
        # An ANCHOR row is no verdict: the ruler its benchmark's candidate
        # was corrected by (and that candidate is INCONCLUSIVE).
        bad = [v for _, vs, _ in aa + det for v in vs.values()
               if v not in ("INCONCLUSIVE", "ANCHOR")]
        codes = [c for c, _, _ in aa + det if c != 0]
        print("below the minimum sample count: %d verdict(s) other than "
              "INCONCLUSIVE, %d compare(s) not exiting 0" % (len(bad),
                                                            len(codes)))
        return not bad and not codes and all(vs for _, vs, _ in aa + det)
    return (alarms <= TARGET_FALSE_ALARMS * n and
            detected >= TARGET_DETECTION * n)


def main():
    args = parse_args()
    kb = Path(args.kernel_bench).resolve()
    if args.recompare:
        work = Path(args.recompare).resolve()
        env = dict(os.environ, KB_CACHE_DIR=str(work / "cache"))
        ok = report(*judge(kb, work, env, args.anchor), args)
        return 0 if ok or not args.check else 1
    temp = None
    if args.keep:
        work = Path(args.keep).resolve()
        work.mkdir(parents=True, exist_ok=True)
    else:
        temp = tempfile.TemporaryDirectory(prefix="kb_verdict_rates_")
        work = Path(temp.name)
    # A private cache: the builds and the copy-bandwidth probe are not the
    # user's, and the first bench measures the probe once for every run.
    env = dict(os.environ, KB_CACHE_DIR=str(work / "cache"))
    start = time.monotonic()
    build(kb, work, env)
    measure(kb, work, args, env)
    ok = report(*judge(kb, work, env, args.anchor), args)
    print("total %.0f s" % (time.monotonic() - start))
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
