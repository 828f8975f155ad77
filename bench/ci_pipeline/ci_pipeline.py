#!/usr/bin/env python3
"""bench/ci_pipeline: what sharding a bench run costs, and what a runner receives.

    ci_pipeline.py --kernel-bench KB [--runtime-binary RT] [--quickstart BUILD]
                   [--shards 3] [--rounds 2] [--device vulkan]

Prints, in one run, on examples/quickstart (built into a temp dir with KB
unless --quickstart names a build of it):

1. the bundle: its size, the number of modules, and the size of the build
   directory it comes from;
2. the harness overhead of one unsharded `bench BUNDLE --quick` (the anchor)
   and of --shards shard runs of the same bundle, summed: a run's overhead is
   its wall time minus the time its samples took (host time of every sample
   x dispatches per sample, from its bench.json) -- worker starts, device
   set-up, correctness checks, bundle extraction, report writing. The
   unsharded run and the shard set alternate --rounds times; the ratio of the
   medians is printed (target: <= 1.10, i.e. <= 10 % more);
3. the runtime-only binary (--runtime-binary, a kernel-bench configured with
   -DKB_ENABLE_COMPILER=OFF -DKB_STATIC_RUNTIME=ON): its size as built and
   stripped, and the shared libraries it needs.

Not a test: the numbers depend on the machine (lavapipe in CI). Python 3
standard library only.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd, env=None):
    """Runs |cmd|; returns (wall seconds, exit code, output)."""
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return time.monotonic() - start, p.returncode, p.stdout + p.stderr


def sampling_seconds(report_path):
    """The time the samples of a bench.json took on the host."""
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)

    def timing(t):
        return sum(t["samples"]["host_ns"]) * t["dispatches_per_sample"] * 1e-9

    total = 0.0
    for b in report["benchmarks"]:
        for v in b["variants"]:
            total += sum(timing(t) for t in v["timings"])
    program = report.get("program")
    if program:
        for key in ("with_substitutions", "generated_only"):
            if program.get(key):
                total += timing(program[key])
    return total, len(report["benchmarks"]) + (1 if program else 0)


def bench(args, env, bundle, out, extra):
    cmd = [args.kernel_bench, "bench", bundle, "-o", out, "--quick",
           "--device", args.device] + extra
    wall, rc, output = run(cmd, env)
    if rc not in (0, 1):
        sys.exit(f"ci_pipeline: {' '.join(cmd)} exited {rc}:\n{output}")
    sampled, count = sampling_seconds(os.path.join(out, "bench.json"))
    return wall, sampled, count


def kib(n):
    return f"{n / 1024:.1f} KiB"


def tree_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f))
               for d, _, files in os.walk(path) for f in files)


def runtime_binary(path):
    size = os.path.getsize(path)
    with tempfile.TemporaryDirectory() as tmp:
        stripped = os.path.join(tmp, "kernel-bench")
        subprocess.run(["strip", "-o", stripped, path], check=True)
        stripped_size = os.path.getsize(stripped)
    ldd = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
    libs = sorted({line.split()[0] for line in ldd.splitlines() if line.strip()})
    print(f"runtime-only kernel-bench: {size / 1e6:.1f} MB as built, "
          f"{stripped_size / 1e6:.1f} MB stripped ({path})")
    print(f"  shared libraries: {', '.join(libs)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kernel-bench", required=True)
    parser.add_argument("--runtime-binary")
    parser.add_argument("--quickstart")
    parser.add_argument("--shards", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="kb-ci-pipeline-") as tmp:
        env = dict(os.environ, KB_CACHE_DIR=os.path.join(tmp, "cache"))
        for name in ("JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID",
                     "KB_SHARD_INDEX", "KB_SHARD_COUNT"):
            env.pop(name, None)
        build = args.quickstart
        if not build:
            build = os.path.join(tmp, "quickstart")
            _, rc, output = run([args.kernel_bench, "build",
                                 os.path.join(ROOT, "examples/quickstart"),
                                 "-o", build], env)
            if rc != 0:
                sys.exit(f"ci_pipeline: building the quickstart failed:\n{output}")
        bundle = os.path.join(tmp, "quickstart.tar")
        _, rc, output = run([args.kernel_bench, "bundle", build, "-o", bundle], env)
        if rc != 0:
            sys.exit(f"ci_pipeline: bundle failed:\n{output}")
        modules = output.split("build.json + ")[1].split(" ")[0] if "build.json + " in output else "?"
        print(f"bundle of the quickstart: {kib(os.path.getsize(bundle))} "
              f"({modules} modules + build.json + manifest); the build "
              f"directory: {kib(tree_bytes(build))}")

        # Warm-up: the copy-bandwidth probe is cached per device afterwards.
        bench(args, env, bundle, os.path.join(tmp, "warm"), [])
        whole, sharded = [], []
        for r in range(args.rounds):
            wall, sampled, count = bench(args, env, bundle,
                                         os.path.join(tmp, f"all{r}"), [])
            whole.append(wall - sampled)
            total, counted = 0.0, 0
            for i in range(args.shards):
                wall, sampled, n = bench(args, env, bundle,
                                         os.path.join(tmp, f"s{r}-{i}"),
                                         ["--shard", f"{i}/{args.shards}"])
                total += wall - sampled
                counted += n
            if counted != count:
                sys.exit(f"ci_pipeline: the shards ran {counted} benchmarks, "
                         f"the unsharded run {count}")
            sharded.append(total)
        anchor, shards = statistics.median(whole), statistics.median(sharded)
        print(f"harness overhead, unsharded (anchor): {anchor:.2f} s "
              f"({count} benchmarks; rounds: "
              f"{', '.join(f'{x:.2f}' for x in whole)})")
        print(f"harness overhead, {args.shards} shards summed: {shards:.2f} s "
              f"(rounds: {', '.join(f'{x:.2f}' for x in sharded)})")
        print(f"ratio sharded / unsharded: {shards / anchor:.3f} "
              f"(target <= 1.10)")
    if args.runtime_binary:
        runtime_binary(args.runtime_binary)
    else:
        print("runtime-only kernel-bench: not measured (pass --runtime-binary "
              "BUILD-RUNTIME/workbench/kernel-bench; docs/ci.md says how to "
              "build it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
