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

3. Hostile inputs (--hostile): fixed cases per class (deeply nested MLIR,
   FIFOs and devices given as input files, bundles with a huge or unlisted
   member, outputs on a full disk when run as root; hostile text in reports
   is report_hostile_test's and cli_report_test's), each run under --run-timeout and counted: refused cleanly (exit
   1-127 with a message), accepted (exit 0), crashed (a signal or exit >=
   128), hung; with each class's peak RSS (wait4). Targets: 0 crashes, 0
   hangs, peak memory under --memory-cap-mib.

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
import threading
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


def run_case(argv, timeout, env=None, stdin=None):
    """(outcome, exit status, peak RSS in KiB, output) of one command, run in
    its own session and killed with everything it started on a hang."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, stdin=stdin, env=env,
                         start_new_session=True)
    out = []
    end = time.monotonic() + timeout
    reader = threading.Thread(target=lambda: out.append(p.stdout.read()))
    reader.start()
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > end:
            os.killpg(p.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(p.pid, 0)
            reader.join()
            p.returncode = -9
            return "hung", None, usage.ru_maxrss, b"".join(out).decode(
                errors="replace")
        time.sleep(0.01)
    reader.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    text = b"".join(out).decode(errors="replace")
    rc = p.returncode
    if rc < 0 or rc >= 128:
        outcome = "crashed"
    elif rc == 0:
        outcome = "accepted"
    else:
        outcome = "refused" if "error" in text else "crashed"
    return outcome, rc, usage.ru_maxrss, text


def deep_mlir_cases(tmp):
    """Programs nested 10,000 deep in an attribute, a type and regions."""
    bodies = {
        "attribute": "module attributes {x = " + "[" * 10000 + "]" * 10000 +
                     "} {}\n",
        "type": "func.func private @f() -> " + "tuple<" * 10000 +
                ">" * 10000 + "\n",
        "regions": "module {" + "module {" * 10000 + "}" * 10001 + "\n",
    }
    cases = []
    for name, body in bodies.items():
        project = os.path.join(tmp, "deep-" + name)
        os.makedirs(project, exist_ok=True)
        with open(os.path.join(project, "program.mlir"), "w") as f:
            f.write(body)
        with open(os.path.join(project, "workbench.toml"), "w") as f:
            f.write('[project]\nname = "deep"\nprogram = "program.mlir"\n'
                    'targets = ["vulkan:1.2"]\n')
        cases.append(("nested " + name, ["build", project, "-o",
                                         os.path.join(project, "out"),
                                         "--no-cache"]))
    return cases


def special_file_cases(tmp):
    """FIFOs, devices and directories given where a file is read."""
    fifo = os.path.join(tmp, "fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    build = os.path.join(tmp, "fifo-build")
    os.makedirs(build, exist_ok=True)
    if not os.path.exists(os.path.join(build, "build.json")):
        os.mkfifo(os.path.join(build, "build.json"))
    return [
        ("report of a FIFO", ["report", fifo, "-o", os.path.join(tmp, "r")]),
        ("report of /dev/zero", ["report", "/dev/zero", "-o",
                                 os.path.join(tmp, "r")]),
        ("compare with /dev/urandom", ["compare", "/dev/urandom", fifo]),
        ("merge of a directory", ["merge", tmp, tmp, "-o",
                                  os.path.join(tmp, "m")]),
        ("bench of a FIFO build.json", ["bench", build]),
        ("run of a FIFO module", ["run", fifo]),
    ]


def write_sparse_bundle(path, name, listed):
    """A bundle whose last member is a sparse 2 GiB |name|; |listed|: the
    manifest names it, with another size and sha256."""
    import io
    import tarfile
    manifest = b"# kernel-bench bundle 1\n"
    if listed:
        manifest += (b"# bytes 10 " + name.encode() + b"\n" + b"0" * 64 +
                     b"  " + name.encode() + b"\n")
    with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as t:
        info = tarfile.TarInfo("kernel-bench-bundle.sha256")
        info.size = len(manifest)
        t.addfile(info, io.BytesIO(manifest))
    size = 2 << 30
    info = tarfile.TarInfo(name)
    info.size = size
    end = os.path.getsize(path)
    while end >= 512:  # past our members' end marker and tar's padding
        with open(path, "rb") as f:
            f.seek(end - 512)
            if f.read(512) != b"\0" * 512:
                break
        end -= 512
    with open(path, "r+b") as f:
        f.seek(end)
        f.write(info.tobuf(format=tarfile.USTAR_FORMAT))
        f.truncate(end + 512 + size + 1024)


def bundle_cases(tmp):
    unlisted = os.path.join(tmp, "unlisted.tar")
    listed = os.path.join(tmp, "listed.tar")
    write_sparse_bundle(unlisted, "bench/huge.kbm", False)
    write_sparse_bundle(listed, "bench/huge.kbm", True)
    return [("bundle with an unlisted 2 GiB member", ["bench", unlisted]),
            ("bundle with a listed 2 GiB member", ["bench", listed])]


def full_disk_cases(tmp, project, extra):
    """A build whose output directory is a 32 KiB tmpfs (root only)."""
    if os.geteuid() != 0 or not project:
        return [], "not root" if project else "no --project"
    disk = os.path.join(tmp, "disk")
    os.makedirs(disk, exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32k", "tmpfs",
                       disk]).returncode != 0:
        return [], "mount -t tmpfs failed"
    argv = ["build", project, "-o", os.path.join(disk, "out"), "--cache-dir",
            os.path.join(tmp, "disk-cache"), "--target", "vulkan:1.2"]
    return [("build onto a full disk", argv + extra)], disk


def hostile_inputs(kb, tmp, timeout, project, extra):
    classes = [("deep MLIR", deep_mlir_cases(tmp)),
               ("FIFOs and devices", special_file_cases(tmp)),
               ("bundles", bundle_cases(tmp))]
    disk_cases, disk = full_disk_cases(tmp, project, extra)
    if disk_cases:
        classes.append(("full disk", disk_cases))
    results = []
    env = dict(os.environ, NO_COLOR="1")
    try:
        for label, cases in classes:
            row = {"label": label, "cases": 0, "refused": 0, "accepted": 0,
                   "crashed": 0, "hung": 0, "peak_kib": 0, "bad": []}
            for name, argv in cases:
                outcome, rc, peak, text = run_case([kb] + argv, timeout, env)
                row["cases"] += 1
                row[outcome] += 1
                row["peak_kib"] = max(row["peak_kib"], peak)
                if outcome in ("crashed", "hung"):
                    row["bad"].append("%s: %s, exit %s: %s" % (
                        name, outcome, rc, text[-300:]))
            results.append(row)
    finally:
        if disk_cases:
            subprocess.run(["umount", "-l", disk])
    return results, (None if disk_cases else disk)


def print_hostile(results, skipped, cap_mib, missed):
    print("hostile inputs: cases per class, outcome counts, peak RSS "
          "(targets: 0 crashed, 0 hung, peak under %d MiB)" % cap_mib)
    print("  %-22s %5s %7s %8s %7s %4s %9s" % ("class", "cases", "refused",
                                             "accepted", "crashed", "hung",
                                             "peak MiB"))
    for r in results:
        print("  %-22s %5d %7d %8d %7d %4d %9.1f" % (
            r["label"], r["cases"], r["refused"], r["accepted"],
            r["crashed"], r["hung"], r["peak_kib"] / 1024.0))
        for line in r["bad"]:
            print("    " + line.replace("\n", " | "))
        if r["crashed"]:
            missed.append("a hostile input crashed kernel-bench")
        if r["hung"]:
            missed.append("a hostile input hung kernel-bench")
        if r["peak_kib"] > cap_mib * 1024:
            missed.append("peak memory over the cap (%s)" % r["label"])
    if skipped:
        print("  full disk: skipped (%s)" % skipped)


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
    ap.add_argument("--hostile", action="store_true",
                    help="run the hostile-input cases")
    ap.add_argument("--memory-cap-mib", type=int, default=512,
                    help="peak RSS target for a hostile input (default 512)")
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
        if args.hostile:
            results, skipped = hostile_inputs(
                kb, tmp, args.run_timeout,
                os.path.abspath(args.project) if args.project else None,
                ["--kernels-only"] if args.kernels_only else [])
            print_hostile(results, skipped, args.memory_cap_mib, missed)
    if missed:
        print("targets missed: " + ", ".join(missed))
    return 1 if (args.check and missed) else 0


if __name__ == "__main__":
    sys.exit(main())
