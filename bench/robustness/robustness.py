#!/usr/bin/env python3
"""Reliability figures of kernel-bench, printed with their targets.

  robustness.py --kernel-bench KB [--make-modules MAKER] [--mutations N]
                [--project DIR] [--builds N --dirs M] [--check]

1. The .kbm mutation run: N random mutations of each module (the sample
   modules kb-make-test-modules writes, plus the modules of --project's
   build when --project is given) through `kernel-bench run`, each counted by
   outcome: refused cleanly / ran / worker died by a signal, reported as an
   error / hung (killed here after --run-timeout) / kernel-bench itself died
   by a signal. Targets: kernel-bench never dies by a signal, and no run
   hangs (a hang is as much a failure for a user as a crash).
2. Concurrent builds: --builds builds of --project started at once on --dirs
   output directories sharing one cache. Targets: no failed build, every
   output directory byte-identical to a serial build's, no orphaned process
   (processes are recognised by a marker in their environment).

The anchor printed with the timings is the serial build measured in the same
run. With --check the exit status is 1 when a target is missed (ctest runs
a small version: bench/robustness/CMakeLists.txt); without it, 0.
Stdlib only.
"""
import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

OUTCOMES = [
    ("refused", "refused cleanly"),
    ("ran", "ran"),
    ("worker-died", "worker died by a signal, reported as an error"),
    ("hung", "hung (killed after the timeout)"),
    ("kb-died", "kernel-bench itself died by a signal"),
]

# Values that make sizes, counts and offsets absurd.
INTERESTING = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0x80000000,
               0xFFFFFFFF, 64, 256, 1 << 20]


def mutate(data, rng):
    """One random mutation of |data| (bytes): a libFuzzer-like menu."""
    out = bytearray(data)
    kind = rng.randrange(6)
    if kind == 0:  # flip a few bits
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(out))
            out[i] ^= 1 << rng.randrange(8)
    elif kind == 1:  # random bytes
        for _ in range(rng.randint(1, 4)):
            out[rng.randrange(len(out))] = rng.randrange(256)
    elif kind == 2:  # an interesting 32-bit little-endian word
        i = rng.randrange(max(1, len(out) - 4)) & ~3
        out[i:i + 4] = rng.choice(INTERESTING).to_bytes(4, "little")
    elif kind == 3:  # truncate
        del out[rng.randrange(len(out)):]
    elif kind == 4:  # duplicate a chunk
        i = rng.randrange(len(out))
        j = min(len(out), i + rng.randint(1, 64))
        out[i:i] = out[i:j]
    else:  # copy a chunk over another place
        i, j = rng.randrange(len(out)), rng.randrange(len(out))
        n = rng.randint(1, 32)
        out[j:j + n] = out[i:i + n]
    return bytes(out)


def classify(returncode, output):
    if returncode < 0:
        return "kb-died"
    if returncode >= 128:
        # kernel-bench itself exits 128+N only when interrupted; nobody
        # interrupts it here, so this is a crash reported by a shell wrapper.
        return "kb-died"
    if returncode == 0:
        return "ran"
    if "error:" in output:
        if re.search(r"worker.*(signal|killed)", output):
            return "worker-died"
        return "refused"
    return "ran"  # ran, and the comparison found a mismatch (exit 1)


def mutation_run(kb, modules, count, seed, timeout, device, tmp, keep):
    rng = random.Random(seed)
    counts = {key: 0 for key, _ in OUTCOMES}
    deaths = []
    for module in modules:
        with open(module, "rb") as f:
            original = f.read()
        for n in range(count):
            path = os.path.join(tmp, "mutant.kbm")
            data = mutate(original, rng)
            with open(path, "wb") as f:
                f.write(data)
            # Its own session: a hung run is killed with everything it
            # started.
            p = subprocess.Popen([kb, "run", path, "--device", device],
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT,
                                 start_new_session=True)
            try:
                out = p.communicate(timeout=timeout)[0]
                outcome = classify(p.returncode, out.decode(errors="replace"))
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.communicate()
                outcome = "hung"
            counts[outcome] += 1
            if outcome in ("kb-died", "hung", "worker-died"):
                # A worker that died is reported, not a missed target, but
                # its mutant is kept too: it names a crash to look into.
                kept = None
                if keep:
                    os.makedirs(keep, exist_ok=True)
                    kept = os.path.join(keep, "%s-%d-%d.kbm" % (
                        outcome, modules.index(module), n))
                    shutil.copy(path, kept)
                if outcome != "worker-died":
                    deaths.append((module, n, outcome, p.returncode, kept))
    return counts, deaths


def run_build(kb, project, out, cache, env, extra):
    return subprocess.Popen([kb, "build", project, "-o", out, "--cache-dir",
                             cache] + extra, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env)


def tree(directory):
    """Relative path -> bytes of every published file (not build.json,
    whose timings differ, nor the hidden bookkeeping files)."""
    files = {}
    for root, dirs, names in os.walk(directory):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            if name.startswith(".") or name == "build.json":
                continue
            full = os.path.join(root, name)
            with open(full, "rb") as f:
                files[os.path.relpath(full, directory)] = f.read()
    return files


def marked_processes(marker):
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                entries = f.read().split(b"\0")
            with open("/proc/%s/stat" % pid, "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in entries and state != b"Z":
            pids.append(int(pid))
    return pids


def concurrent_builds(kb, project, builds, dirs, tmp, extra):
    marker = "KB_ROBUSTNESS_MARK=%d-%d" % (os.getpid(), time.time_ns())
    env = dict(os.environ, NO_COLOR="1")
    env[marker.split("=")[0]] = marker.split("=", 1)[1]
    # Built in place: a build only reads the project (kernel.toml may name
    # kernels outside it, as the quickstart does) and writes under -o.
    src = project

    start = time.monotonic()
    serial = run_build(kb, src, os.path.join(tmp, "serial"),
                       os.path.join(tmp, "serial-cache"), env, extra)
    serial_out = serial.communicate()[0].decode(errors="replace")
    serial_seconds = time.monotonic() - start
    if serial.returncode != 0:
        return {"error": "the serial build failed:\n" + serial_out}
    reference = tree(os.path.join(tmp, "serial"))

    start = time.monotonic()
    cache = os.path.join(tmp, "shared-cache")
    procs = [run_build(kb, src, os.path.join(tmp, "out%d" % (i % dirs)),
                       cache, env, extra) for i in range(builds)]
    failed = []
    for i, p in enumerate(procs):
        out = p.communicate()[0].decode(errors="replace")
        if p.returncode != 0:
            failed.append((i, p.returncode, out))
    wall = time.monotonic() - start
    different = []
    for d in range(min(dirs, builds)):
        got = tree(os.path.join(tmp, "out%d" % d))
        if got != reference:
            diff = sorted(set(got) ^ set(reference)) + sorted(
                k for k in set(got) & set(reference) if got[k] != reference[k])
            different.append((d, diff[:5]))
    time.sleep(0.5)
    orphans = marked_processes(marker)
    return {"serial_seconds": serial_seconds, "wall": wall,
            "failed": failed, "different": different, "orphans": orphans,
            "files": len(reference)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernel-bench", required=True)
    ap.add_argument("--make-modules", help="kb-make-test-modules, for the "
                    "sample modules the mutation run starts from")
    ap.add_argument("--project", help="project for the concurrent builds "
                    "(e.g. examples/quickstart); its modules are mutated too")
    ap.add_argument("--mutations", type=int, default=10000,
                    help="mutations per module (default 10000)")
    ap.add_argument("--kernels-only", action="store_true",
                    help="pass --kernels-only to the builds (a kernel-bench "
                    "without the compiler)")
    ap.add_argument("--builds", type=int, default=20)
    ap.add_argument("--dirs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--run-timeout", type=float, default=120.0)
    ap.add_argument("--device", default="vulkan")
    ap.add_argument("--keep-dir", help="copy mutants that killed "
                    "kernel-bench or hung here")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when a target is missed")
    args = ap.parse_args()
    kb = os.path.abspath(args.kernel_bench)
    missed = []
    with tempfile.TemporaryDirectory(prefix="kb-robustness-") as tmp:
        modules = []
        if args.make_modules:
            rc = subprocess.run([args.make_modules, os.path.join(tmp, "m")],
                                stdout=subprocess.DEVNULL).returncode
            if rc == 0:
                modules += [os.path.join(tmp, "m", k, "program.kbm")
                            for k in ("ok", "wrong")]
            elif rc == 77:  # its "glslc is not installed"
                print("mutation run: skipped (kb-make-test-modules: glslc "
                      "is not installed)")
            else:
                print("mutation run: kb-make-test-modules failed (exit %d)"
                      % rc)
                missed.append("the sample modules")
        if args.project and args.builds:
            r = concurrent_builds(kb, os.path.abspath(args.project),
                                  args.builds, args.dirs, tmp,
                                  ["--kernels-only"] if args.kernels_only
                                  else [])
            name = os.path.basename(os.path.abspath(args.project))
            if "error" in r:
                print("concurrent builds: " + r["error"])
                missed.append("serial build")
            else:
                print("concurrent builds: %d builds of %s on %d output "
                      "directories sharing one cache" % (args.builds, name,
                                                          args.dirs))
                print("  failed builds: %d (target 0)" % len(r["failed"]))
                for i, rc, out in r["failed"]:
                    print("    build %d exit %d:\n%s" % (i, rc, out[-2000:]))
                print("  output directories differing from a serial build: "
                      "%d of %d (target 0; %d files compared each)" %
                      (len(r["different"]), min(args.dirs, args.builds),
                       r["files"]))
                for d, files in r["different"]:
                    print("    out%d: %s" % (d, ", ".join(files)))
                print("  orphaned processes: %d (target 0)" %
                      len(r["orphans"]))
                print("  wall %.1f s for all %d; anchor: one serial cold "
                      "build %.1f s (ratio %.2f)" %
                      (r["wall"], args.builds, r["serial_seconds"],
                       r["wall"] / max(r["serial_seconds"], 1e-9)))
                if r["failed"] or r["different"] or r["orphans"]:
                    missed.append("concurrent builds")
                serial = os.path.join(tmp, "serial")
                for root, _, names in os.walk(serial):
                    modules += [os.path.join(root, n) for n in names
                                if n.endswith(".kbm")]
        if modules and args.mutations:
            start = time.monotonic()
            counts, deaths = mutation_run(kb, modules, args.mutations,
                                          args.seed, args.run_timeout,
                                          args.device, tmp, args.keep_dir)
            total = sum(counts.values())
            print(".kbm mutation run: %d mutations of %d modules through "
                  "`kernel-bench run --device %s` (seed %d, %.0f s)" %
                  (total, len(modules), args.device, args.seed,
                   time.monotonic() - start))
            for key, label in OUTCOMES:
                target = (" (target 0)" if key in ("kb-died", "hung")
                          else "")
                print("  %-48s %6d%s" % (label, counts[key], target))
            for module, n, outcome, rc, kept in deaths:
                print("    %s mutation %d: %s, exit %d%s" %
                      (os.path.basename(module), n, outcome, rc,
                       " (kept as %s)" % kept if kept else ""))
            if counts["kb-died"]:
                missed.append("kernel-bench died by a signal")
            if counts["hung"]:
                missed.append("a run hung")
    if missed:
        print("targets missed: " + ", ".join(missed))
    return 1 if (args.check and missed) else 0


if __name__ == "__main__":
    sys.exit(main())
