#!/usr/bin/env python3
"""How fast is `kernel-bench build`? Measured against the anchors, same run.

Builds the bundled kernels (examples/quickstart: kernels/* for cuda:sm_90
and vulkan:1.2) on a copy of the project in a temporary directory and prints:

  * cold build at -j2 (fresh cache)                   target: <= 0.6 x serial
  * serial sum of the raw tool invocations: the tool durations recorded in
    build.json by a cold -j1 build (uncontended, so not inflated by -j2)
  * no-op rebuild (median of several)                  target: <= 100 ms and
                                                        <= Ninja's no-op
  * no-op rebuild of the whole quickstart, program step included (the
    compiler library is not even loaded)               target: <= Ninja's no-op
  * instructions executed by each no-op (valgrind --tool=callgrind), printed
    beside the wall times: 16 ms is within these machines' noise, the
    instruction counts are not
  * rebuild after editing one kernel source, and which jobs re-ran
                                                        target: only that one
  * the same kernels built by a plain CMake + Ninja project generated here
    (custom commands: nvcc -ptx + ptxas -v, glslc + spirv-val, with depfiles):
    cold at -j2 and no-op.

Not a test: timings depend on the machine. Run it with
  cmake --build BUILD --target bench-build-speed
or directly:
  bench/build_speed/build_speed.py --kernel-bench BUILD/workbench/kernel-bench

Standard library only (python3 >= 3.11 for tomllib).
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
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TARGETS = ["cuda:sm_90", "vulkan:1.2"]


def run_timed(argv, cwd=None, env=None, check=True):
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    seconds = time.perf_counter() - start
    if check and proc.returncode != 0:
        sys.exit(f"build_speed: `{' '.join(map(str, argv))}` failed "
                 f"(exit {proc.returncode}):\n{proc.stdout}")
    return seconds, proc.stdout


def find_tool(name, cuda=False):
    if cuda:
        for root in filter(None, [os.environ.get("CUDA_PATH"), "/usr/local/cuda"]):
            candidate = Path(root) / "bin" / name
            if os.access(candidate, os.X_OK):
                return str(candidate)
    found = shutil.which(name)
    if not found:
        sys.exit(f"build_speed: {name} not found; this benchmark needs nvcc, "
                 "ptxas, glslc, spirv-val, cmake and ninja")
    return found


class KernelBench:
    def __init__(self, binary, project, out, cache, jobs, kernels_only=True):
        self.binary, self.project, self.out = binary, project, out
        self.cache, self.jobs, self.kernels_only = cache, jobs, kernels_only

    def argv(self):
        return ([self.binary, "build", str(self.project), "-o", str(self.out),
                 "--cache-dir", str(self.cache), "-j", str(self.jobs)]
                + (["--kernels-only"] if self.kernels_only else [])
                + sum((["--target", t] for t in TARGETS), []))

    def build(self):
        seconds, self.output = run_timed(self.argv())
        report = json.loads((self.out / "build.json").read_text())
        return seconds, report


def rebuilt_jobs(report):
    return [f"{j['kernel']} {j['target']}" for j in report["jobs"]
            if j["cache"] != "hit"]


def copy_project(tmp):
    """examples/quickstart and kernels/ at the same relative places, so the
    project's `../../kernels/*` resolves and edits stay out of the repo."""
    shutil.copytree(REPO / "kernels", tmp / "kernels",
                    ignore=shutil.ignore_patterns("*.cpp", "CMakeLists.txt"))
    (tmp / "examples").mkdir()
    shutil.copytree(REPO / "examples/quickstart", tmp / "examples/quickstart")
    return tmp / "examples/quickstart"


def kernel_specs(kernels_dir):
    """(name, source, defines, include_dirs, flags) per source, from each
    kernel.toml (the same inputs kernel-bench reads)."""
    specs = []
    for manifest in sorted(kernels_dir.glob("*/kernel.toml")):
        data = tomllib.loads(manifest.read_text())
        k = data["kernel"]
        name = k.get("name", manifest.parent.name)
        sources = k.get("sources") or [k["source"]]
        defines = [f"-D{key}={value}" for key, value in k.get("defines", {}).items()]
        includes = [f"-I{manifest.parent / d}" for d in k.get("include_dirs", [])]
        for source in sources:
            specs.append((name, manifest.parent / source, defines, includes,
                          k.get("flags", {})))
    return specs


def cmake_quote(arg):
    return '"' + str(arg).replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_cmake_project(directory, specs, tools):
    """A plain CMake project with one custom command chain per (kernel,
    target), the way a CMake user would build these kernels by hand."""
    lines = ["cmake_minimum_required(VERSION 3.20)",
             "project(kernels_by_hand NONE)", "set(outputs)"]
    for name, source, defines, includes, flags in specs:
        if source.suffix == ".cu":
            ptx, cubin = f"{name}.sm_90.ptx", f"{name}.sm_90.cubin"
            nvcc = ([tools["nvcc"], "-ptx", "-arch=sm_90", "-MD", "-MF",
                     f"{ptx}.d", "-MT", ptx] + defines + includes
                    + flags.get("nvcc", []) + [source, "-o", ptx])
            ptxas = ([tools["ptxas"], "-arch=sm_90", "-v", "--warn-on-spills"]
                     + flags.get("ptxas", []) + [ptx, "-o", cubin])
            lines += [
                f"add_custom_command(OUTPUT {ptx} COMMAND {' '.join(map(cmake_quote, nvcc))}",
                f"  DEPENDS {cmake_quote(source)} DEPFILE {ptx}.d VERBATIM)",
                f"add_custom_command(OUTPUT {cubin} COMMAND {' '.join(map(cmake_quote, ptxas))}",
                f"  DEPENDS ${{CMAKE_CURRENT_BINARY_DIR}}/{ptx} VERBATIM)",
                f"list(APPEND outputs {cubin})"]
        else:
            spv = f"{name}.vulkan1.2.spv"
            stamp = f"{spv}.valid"
            glslc = ([tools["glslc"], "-fshader-stage=compute",
                      "--target-env=vulkan1.2", "-MD", "-MF", f"{spv}.d",
                      "-MT", spv] + defines + includes
                     + flags.get("glslc", []) + [source, "-o", spv])
            val = ([tools["spirv-val"], "--target-env", "vulkan1.2"]
                   + flags.get("spirv-val", []) + [spv])
            lines += [
                f"add_custom_command(OUTPUT {spv} COMMAND {' '.join(map(cmake_quote, glslc))}",
                f"  DEPENDS {cmake_quote(source)} DEPFILE {spv}.d VERBATIM)",
                f"add_custom_command(OUTPUT {stamp} COMMAND {' '.join(map(cmake_quote, val))}",
                f"  COMMAND ${{CMAKE_COMMAND}} -E touch {stamp}",
                f"  DEPENDS ${{CMAKE_CURRENT_BINARY_DIR}}/{spv} VERBATIM)",
                f"list(APPEND outputs {stamp})"]
    lines.append("add_custom_target(kernels ALL DEPENDS ${outputs})")
    (directory / "CMakeLists.txt").write_text("\n".join(lines) + "\n")


def instructions(argv, tmp, name):
    """Instructions the process executed (callgrind's total Ir), or None
    without valgrind. Children are not followed: a no-op runs none."""
    valgrind = shutil.which("valgrind")
    if not valgrind:
        return None
    out_file = tmp / f"callgrind.{name}.out"
    proc = subprocess.run([valgrind, "--tool=callgrind", "--quiet",
                           f"--callgrind-out-file={out_file}"] + list(map(str, argv)),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        sys.exit(f"build_speed: callgrind run of {name} failed:\n{proc.stdout}")
    for line in out_file.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    return None


def format_instructions(count):
    return "n/a (install valgrind)" if count is None else f"{count / 1e6:8.2f} M instr"


def instruction_ratio(count, ninja):
    """The no-op's instructions against Ninja's (the target the wall time,
    within these machines' noise, cannot be)."""
    if count is None or not ninja:
        return ""
    return (f"   {count / ninja:.2f} x Ninja's  target <= 1.00  "
            f"{verdict(count <= ninja)}")


def median_seconds(fn, repeat):
    return statistics.median(fn() for _ in range(repeat))


def verdict(ok):
    return "ok" if ok else "MISSED"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel-bench", default=str(REPO / "build/workbench/kernel-bench"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5,
                        help="no-op rebuilds to take the median of")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    args = parser.parse_args()

    binary = str(Path(args.kernel_bench).resolve())
    if not os.access(binary, os.X_OK):
        sys.exit(f"build_speed: {binary} is not an executable; pass --kernel-bench")
    tools = {"nvcc": find_tool("nvcc", cuda=True),
             "ptxas": find_tool("ptxas", cuda=True),
             "glslc": find_tool("glslc"), "spirv-val": find_tool("spirv-val")}
    cmake, ninja = find_tool("cmake"), find_tool("ninja")

    tmp = Path(tempfile.mkdtemp(prefix="kb_build_speed_"))
    try:
        project = copy_project(tmp)
        specs = kernel_specs(tmp / "kernels")

        # Serial reference: every tool invocation of a cold build, uncontended.
        serial = KernelBench(binary, project, tmp / "out-serial", tmp / "cache-serial", 1)
        serial_wall, serial_report = serial.build()
        serial_sum = serial_report["totals"]["tool_seconds"]

        kb = KernelBench(binary, project, tmp / "out", tmp / "cache", args.jobs)
        cold, cold_report = kb.build()
        jobs = cold_report["totals"]["jobs"]
        if cold_report["totals"]["cache_hits"] != 0:
            sys.exit("build_speed: the cold build hit the cache; fresh dir expected")

        # What each no-op says: one decided from stat() alone keeps
        # build.json as the last build that did something wrote it, so the
        # summary line is what tells that nothing was compiled.
        noop_lines = []

        def noop():
            seconds, _ = kb.build()
            noop_lines.append(kb.output)
            return seconds
        kb_noop = median_seconds(noop, args.repeat)
        noop_all_hits = all(f"{jobs} jobs, {jobs} cached" in out
                            for out in noop_lines)

        # The whole quickstart, program step included: a no-op checks the
        # program's stamp and must not load the compiler library.
        full = KernelBench(binary, project, tmp / "out-full", tmp / "cache",
                           args.jobs, kernels_only=False)
        full.build()
        full_lines = []

        def full_noop():
            seconds, _ = full.build()
            full_lines.append(full.output)
            return seconds
        kb_full_noop = median_seconds(full_noop, args.repeat)
        full_cached = all("program.kbm (cached)" in out for out in full_lines)
        stat_only = sum("nothing changed" in out
                        for out in noop_lines + full_lines)
        kb_noop_instr = instructions(kb.argv(), tmp, "kernel-bench-kernels")
        kb_full_instr = instructions(full.argv(), tmp, "kernel-bench-full")

        # Touch (mtime only): content-addressed, so nothing re-runs.
        edited = next(s for s in specs if s[1].suffix == ".cu")
        os.utime(edited[1])
        touch_seconds, touch_report = kb.build()
        touched_rebuilt = rebuilt_jobs(touch_report)

        # Edit (content changes): only that source's job re-runs.
        with open(edited[1], "a") as f:
            f.write(f"\n// edited by bench/build_speed at {time.time()}\n")
        edit_seconds, edit_report = kb.build()
        edit_rebuilt = rebuilt_jobs(edit_report)
        expected_rebuilt = [f"{edited[0]} cuda:sm_90"]

        # The same kernels with plain CMake + Ninja. The edited file is
        # restored first so both build the same sources.
        shutil.copy(REPO / "kernels" / edited[1].parent.name / edited[1].name, edited[1])
        ninja_src, ninja_build = tmp / "cmake-src", tmp / "cmake-build"
        ninja_src.mkdir()
        write_cmake_project(ninja_src, specs, tools)
        run_timed([cmake, "-S", ninja_src, "-B", ninja_build, "-G", "Ninja"])
        ninja_cold, _ = run_timed([ninja, "-C", ninja_build, f"-j{args.jobs}"])
        ninja_noop = median_seconds(
            lambda: run_timed([ninja, "-C", ninja_build, f"-j{args.jobs}"])[0],
            args.repeat)
        ninja_instr = instructions([ninja, "-C", ninja_build, f"-j{args.jobs}"],
                                   tmp, "ninja")
        _, ninja_status = run_timed([ninja, "-C", ninja_build, "-n"])
        ninja_clean = "no work to do" in ninja_status

        kernels = cold_report["totals"]["kernels"]
        load = os.getloadavg()[0]
        print(f"kernel-bench build speed: {kernels} kernels x {len(TARGETS)} "
              f"targets = {jobs} jobs, -j{args.jobs}, {os.cpu_count()} CPUs, "
              f"load average {load:.1f}"
              + ("  (busy machine: timings are inflated)"
                 if load > os.cpu_count() else ""))
        print(f"  serial sum of tool invocations  {serial_sum:8.3f} s   "
              f"(cold -j1 build: {serial_wall:.3f} s wall)")
        ratio = cold / serial_sum if serial_sum else float("inf")
        print(f"  cold build -j{args.jobs}                 {cold:8.3f} s   "
              f"{ratio:.2f} x serial sum   target <= 0.60  {verdict(ratio <= 0.6)}")
        print(f"  no-op rebuild (median of {args.repeat})     {kb_noop * 1000:8.1f} ms  "
              f"target <= 100 ms {verdict(kb_noop <= 0.1)}; "
              f"{kb_noop / ninja_noop:.2f} x Ninja's no-op  target <= 1.00  "
              f"{verdict(kb_noop <= ninja_noop)}"
              + ("" if noop_all_hits else "   (NOT all cache hits!)")
              + f"   ({stat_only} of {len(noop_lines) + len(full_lines)} "
              "no-ops decided from stat() alone)")
        print(f"      instructions                {format_instructions(kb_noop_instr)}"
              + instruction_ratio(kb_noop_instr, ninja_instr))
        print(f"  no-op rebuild with the program  {kb_full_noop * 1000:8.1f} ms  "
              f"{kb_full_noop / ninja_noop:.2f} x Ninja's no-op  target <= 1.00  "
              f"{verdict(kb_full_noop <= ninja_noop)}"
              + ("" if full_cached else "   (program NOT cached!)"))
        print(f"      instructions                {format_instructions(kb_full_instr)}"
              + instruction_ratio(kb_full_instr, ninja_instr))
        print(f"  touch {edited[1].name} (mtime only)  {touch_seconds:8.3f} s   "
              f"re-ran: {', '.join(touched_rebuilt) or 'nothing'} "
              f"(content-addressed)")
        only_edited = edit_rebuilt == expected_rebuilt
        print(f"  edit {edited[1].name}               {edit_seconds:8.3f} s   "
              f"re-ran: {', '.join(edit_rebuilt) or 'nothing'}   "
              f"target: only {expected_rebuilt[0]}  {verdict(only_edited)}")
        print(f"  CMake + Ninja cold -j{args.jobs}         {ninja_cold:8.3f} s   "
              f"kernel-bench / Ninja = {cold / ninja_cold:.2f}")
        print(f"  CMake + Ninja no-op             {ninja_noop * 1000:8.1f} ms"
              + ("" if ninja_clean else "   (Ninja still had work to do!)"))
        print(f"      instructions                {format_instructions(ninja_instr)}")
        ok = (ratio <= 0.6 and kb_noop <= 0.1 and kb_noop <= ninja_noop
              and kb_full_noop <= ninja_noop and only_edited
              and all(n is None or ninja_instr is None or n <= ninja_instr
                      for n in (kb_noop_instr, kb_full_instr)))
        print("  all targets met" if ok else "  some targets MISSED (see above)")
        return 0
    finally:
        if args.keep:
            print(f"  (kept {tmp})")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
