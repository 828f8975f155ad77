#!/usr/bin/env python3
"""bench/ci_pipeline: what the CI pipeline costs, every figure in one run.

    ci_pipeline.py --kernel-bench KB [--runtime-binary RT | --runtime-build DIR]
                   [--quickstart BUILD] [--shards 3] [--rounds 2]
                   [--remote-rounds 3] [-j 2] [--device auto]

Prints, in one run, on examples/quickstart (built into a temp dir with KB
unless --quickstart names a build of it), each figure with its anchor and
ratio:

1. the bundle: its size against the build directory it comes from;
2. the harness overhead of one unsharded `bench BUNDLE --quick` (the anchor)
   and of --shards shard runs of the same bundle, summed: a run's overhead is
   its wall time minus the time its samples took (host time of every sample
   x dispatches per sample, from its bench.json) -- worker starts, device
   set-up, correctness checks, bundle extraction, report writing. The
   unsharded run and the shard set alternate --rounds times; the ratio of the
   medians is printed (target: <= 1.10, i.e. <= 10 % more);
3. the shared build cache (remote_cache.py, a real nginx on 127.0.0.1): a
   cold build of the quickstart's kernel jobs with an empty server (the
   anchor) against the same with a warm server, median of --remote-rounds
   (target: >= 10x faster);
4. the runtime-only binary: --runtime-binary, or else configured
   (-DKB_ENABLE_COMPILER=OFF -DKB_STATIC_RUNTIME=ON, Release) and built into
   --runtime-build (default: a temp dir): its size as built and stripped
   and the shared libraries it needs beyond libc/libm, against the full
   kernel-bench as a host needs it (kernel-bench + libKBCompiler.so
   stripped, + the LLVM/MLIR and other libraries they load).

A figure that cannot be measured (no nginx, no cmake) is named and the run
exits 1 after printing the others. Not a test: the numbers depend on the
machine (lavapipe without a GPU). Python 3 standard library only.
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

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import remote_cache  # noqa: E402  (this directory's sibling script)

# The variables a CI runner may set that change what `bench` does by
# themselves (tests/support/cli_test_support.h lists the same).
CI_VARIABLES = ("JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID",
                "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX",
                "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT",
                "KB_SHARD_INDEX", "KB_SHARD_COUNT", "GITHUB_STEP_SUMMARY")


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


def stripped_bytes(path):
    with tempfile.TemporaryDirectory() as tmp:
        stripped = os.path.join(tmp, "stripped")
        subprocess.run(["strip", "-o", stripped, path], check=True)
        return os.path.getsize(stripped)


def build_runtime_binary(build_dir, jobs):
    """Configures and builds the runtime-only kernel-bench (docs/ci.md's
    preset's settings) into |build_dir|; returns its path, or None with the
    reason printed."""
    configure = ["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja",
                 "-DCMAKE_BUILD_TYPE=Release", "-DKB_ENABLE_COMPILER=OFF",
                 "-DKB_ENABLE_REMOTE_CACHE=OFF", "-DKB_STATIC_RUNTIME=ON",
                 "-DKB_BUILD_TESTS=OFF", "-DKB_BUILD_BENCHMARKS=OFF"]
    build = ["cmake", "--build", build_dir, "--target", "kernel-bench",
             "-j", str(jobs)]
    start = time.monotonic()
    for cmd in (configure, build):
        try:
            _, rc, output = run(cmd)
        except FileNotFoundError as e:
            print(f"runtime-only kernel-bench: NOT MEASURED: {e}")
            return None
        if rc != 0:
            print(f"runtime-only kernel-bench: NOT MEASURED: "
                  f"`{' '.join(cmd)}` exited {rc}:\n{output[-3000:]}")
            return None
    print(f"runtime-only kernel-bench: built in {build_dir} "
          f"({time.monotonic() - start:.0f} s)")
    return os.path.join(build_dir, "workbench", "kernel-bench")


def full_binaries(kernel_bench):
    """The full kernel-bench and the compiler library it opens from its
    directory (workbench/build/compiler_library.cpp), as a CPU runner has them."""
    found = [kernel_bench]
    here = os.path.dirname(os.path.realpath(kernel_bench))
    for candidate in (os.path.join(here, "libKBCompiler.so"),
                      os.path.join(here, "..", "lib", "libKBCompiler.so")):
        if os.path.isfile(candidate):
            found.append(candidate)
            break
    return found


# What every Linux host has: not counted against either binary.
BASE_LIBRARIES = ("linux-vdso.so.1", "ld-linux-x86-64.so.2", "libc.so.6",
                  "libm.so.6")


def shared_libraries(paths):
    """{name: resolved path} of what ldd lists for |paths|, less the C
    library every host has."""
    libs = {}
    for path in paths:
        ldd = subprocess.run(["ldd", path], capture_output=True,
                             text=True).stdout
        for line in ldd.splitlines():
            parts = line.split()
            if not parts or os.path.basename(parts[0]) in BASE_LIBRARIES:
                continue
            libs[parts[0]] = parts[2] if len(parts) > 2 and parts[1] == "=>" \
                else parts[0]
    return libs


def runtime_binary(path, kernel_bench):
    size, stripped = os.path.getsize(path), stripped_bytes(path)
    full = full_binaries(kernel_bench)
    full_libs = shared_libraries(full)
    full_bytes = (sum(stripped_bytes(f) for f in full) +
                  sum(os.path.getsize(os.path.realpath(p))
                      for p in full_libs.values() if os.path.isfile(p)))
    own_libs = shared_libraries([path])
    print(f"anchor: the full kernel-bench as a host needs it: "
          f"{full_bytes / 1e6:.1f} MB "
          f"({' + '.join(os.path.basename(f) for f in full)}, stripped, + "
          f"{len(full_libs)} shared libraries beyond libc/libm: "
          f"{', '.join(sorted(full_libs)[:6])}, ...)")
    print(f"runtime-only kernel-bench: {size / 1e6:.1f} MB as built, "
          f"{stripped / 1e6:.1f} MB stripped, + {len(own_libs)} shared "
          f"libraries beyond libc/libm; {stripped / full_bytes:.3f} of the "
          f"anchor ({path})")


def build_and_bundle(args, env, tmp):
    """The quickstart built (or --quickstart) and bundled; prints the bundle
    against the build directory; returns the bundle's path."""
    build = args.quickstart
    if not build:
        build = os.path.join(tmp, "quickstart")
        _, rc, output = run([args.kernel_bench, "build",
                             os.path.join(ROOT, "examples/quickstart"),
                             "-o", build], env)
        if rc != 0:
            sys.exit(f"ci_pipeline: building the quickstart failed:\n{output}")
    bundle = os.path.join(tmp, "quickstart.tar")
    _, rc, output = run([args.kernel_bench, "bundle", build, "-o", bundle],
                        env)
    if rc != 0:
        sys.exit(f"ci_pipeline: bundle failed:\n{output}")
    modules = (output.split("build.json + ")[1].split(" ")[0]
               if "build.json + " in output else "?")
    size, tree = os.path.getsize(bundle), tree_bytes(build)
    print(f"anchor: the quickstart's build directory: {kib(tree)}")
    print(f"bundle of the quickstart: {kib(size)} ({modules} modules + "
          f"build.json + manifest), {size / tree:.2f} of the anchor")
    return bundle


def shard_overhead(args, env, tmp, bundle):
    """Harness overhead: one unsharded run against --shards shard runs
    summed, alternating --rounds times; prints both and the ratio."""
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
    ratio = shards / anchor
    print(f"anchor: harness overhead, unsharded: {anchor:.2f} s "
          f"({count} benchmarks; rounds: "
          f"{', '.join(f'{x:.2f}' for x in whole)})")
    print(f"harness overhead, {args.shards} shards summed: {shards:.2f} s "
          f"(rounds: {', '.join(f'{x:.2f}' for x in sharded)})")
    print(f"ratio sharded / unsharded: {ratio:.3f}   target: <= 1.10   "
          f"{'MET' if ratio <= 1.10 else 'NOT MET'}")


def shared_cache(args):
    """remote_cache.py's figure; False when it cannot be measured here."""
    if not os.access(remote_cache.NGINX, os.X_OK):
        print(f"shared build cache: NOT MEASURED: {remote_cache.NGINX} is "
              "not installed (Debian package nginx)")
        return False
    remote_cache.print_figures(remote_cache.measure(
        args.kernel_bench, args.remote_rounds, args.jobs))
    return True


def runtime_only(args, tmp):
    """The runtime-only binary's size; False when it cannot be built."""
    path = args.runtime_binary
    if not path:
        path = build_runtime_binary(
            args.runtime_build or os.path.join(tmp, "runtime-only"), args.jobs)
        if not path:
            return False
    runtime_binary(path, args.kernel_bench)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kernel-bench", required=True,
                        help="the full kernel-bench (with the compiler and "
                             "the remote cache)")
    parser.add_argument("--runtime-binary",
                        help="a runtime-only kernel-bench to measure "
                             "(default: build one)")
    parser.add_argument("--runtime-build",
                        help="where to build the runtime-only kernel-bench "
                             "(default: a temp dir; reused when it exists)")
    parser.add_argument("--quickstart")
    parser.add_argument("--shards", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--remote-rounds", type=int, default=3)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()
    remote_cache.handle_signals()

    measured = True
    with tempfile.TemporaryDirectory(prefix="kb-ci-pipeline-") as tmp:
        env = dict(os.environ, KB_CACHE_DIR=os.path.join(tmp, "cache"))
        for name in CI_VARIABLES:
            env.pop(name, None)
        print("== bundle")
        bundle = build_and_bundle(args, env, tmp)
        print(f"== sharding ({args.shards} shards, --device {args.device})")
        shard_overhead(args, env, tmp, bundle)
        print("== shared build cache")
        measured &= shared_cache(args)
        print("== runtime-only binary")
        measured &= runtime_only(args, tmp)
    return 0 if measured else 1


if __name__ == "__main__":
    sys.exit(main())
