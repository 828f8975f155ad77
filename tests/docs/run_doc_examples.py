#!/usr/bin/env python3
"""Runs the documentation's runnable examples and checks what they print.

A runnable example is a fenced block opened with ```sh runnable; the line
right after its closing fence may say what it expects:

    <!-- runnable: needs vulkan; exit 0; prints "result: outputs agree" -->

`needs vulkan` / `needs nvcc`: skipped (with the reason) where the machine
lacks it; any other need, or a device list kernel-bench cannot print, is a
failure, never a skip; `exit N`: the exit status of the block (default 0); `prints
"TEXT"` (repeatable): a line of its output contains TEXT; `timeout S` (default
300). Blocks run in order, one bash each (-e -o pipefail), in a scratch
directory holding `build` (a link to the build directory) and copies of
`examples/` and `kernels/`, so that examples may write where the docs say
(`-o out`, tuned.toml) without touching the checkout. A block that runs past
its timeout is killed with its whole process group.

usage: run_doc_examples.py SOURCE_DIR BUILD_DIR WORK_DIR DOC.md...
exit 0 every block ran and passed, 1 one failed (printed), 77 a block was
skipped (the others passed; the last line says "skip: " and why, which the
test command's skip report reads), 2 usage.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys

FENCE = re.compile(r"^```sh runnable\s*$")
EXPECT = re.compile(r"^<!--\s*runnable:(.*)-->\s*$")


def parse_expectations(text):
    """{needs, exit, prints, timeout} from a `runnable:` comment's text."""
    want = {"needs": [], "exit": 0, "prints": [], "timeout": 300}
    for part in [p.strip() for p in text.split(";") if p.strip()]:
        if part.startswith("needs "):
            want["needs"].append(part[len("needs "):].strip())
        elif part.startswith("exit "):
            want["exit"] = int(part[len("exit "):])
        elif part.startswith("timeout "):
            want["timeout"] = float(part[len("timeout "):])
        elif part.startswith("prints "):
            want["prints"].append(json.loads(part[len("prints "):]))
        else:
            raise ValueError("unknown expectation `%s`" % part)
    return want


def runnable_blocks(path):
    """[(line, script, expectations)] of the runnable blocks of |path|."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        if not FENCE.match(lines[i]):
            i += 1
            continue
        start, i = i + 1, i + 1
        while i < len(lines) and lines[i].strip() != "```":
            i += 1
        script = "\n".join(lines[start:i])
        after = lines[i + 1] if i + 1 < len(lines) else ""
        found = EXPECT.match(after)
        want = parse_expectations(found.group(1) if found else "")
        blocks.append((start, script, want))
        i += 1
    return blocks


class Broken(Exception):
    """The machine could not be asked, or the doc asks for something this
    runner does not know: a failure, so that a regression cannot read as a
    machine without Vulkan."""


def missing(need, kernel_bench):
    """Why |need| is not met on this machine, or None. Raises Broken."""
    if need == "nvcc":
        return None if shutil.which("nvcc") or os.path.exists(
            "/usr/local/cuda/bin/nvcc") else "no nvcc"
    if need == "vulkan":
        try:
            out = subprocess.run([kernel_bench, "devices", "--json"],
                                 capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise Broken("`kernel-bench devices --json` did not run: %s" % e)
        try:
            drivers = json.loads(out.stdout)["drivers"]
        except (ValueError, KeyError, TypeError):
            raise Broken("`kernel-bench devices --json` printed no device "
                         "list (exit %d): %s" % (out.returncode,
                                                 (out.stdout + out.stderr)[-500:]))
        listed = any(d["name"] == "vulkan" and d["devices"] for d in drivers)
        return None if listed else "no Vulkan device listed"
    raise Broken("unknown need `%s` (known: vulkan, nvcc)" % need)


def run_block(script, want, work):
    """(ok, what it printed or why not)."""
    env = dict(os.environ, PATH=os.path.join(work, "build/workbench") +
               os.pathsep + os.environ.get("PATH", ""))
    proc = subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", script],
                            cwd=work, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=want["timeout"])
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return False, "ran past its %g s" % want["timeout"]
    text = out.decode("utf-8", "replace")
    if proc.returncode != want["exit"]:
        return False, "exited %d, not %d:\n%s" % (proc.returncode, want["exit"],
                                                 text[-3000:])
    absent = [p for p in want["prints"] if p not in text]
    if absent:
        return False, "did not print %s:\n%s" % (absent, text[-3000:])
    return True, text


def prepare(source, build, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.symlink(os.path.abspath(build), os.path.join(work, "build"))
    for tree in ("examples", "kernels"):
        shutil.copytree(os.path.join(source, tree), os.path.join(work, tree),
                        ignore=shutil.ignore_patterns("kb-out", "kb-tune"))


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    source, build, work, docs = argv[0], argv[1], argv[2], argv[3:]
    kernel_bench = os.path.join(build, "workbench", "kernel-bench")
    prepare(source, build, work)
    ran = skipped = 0
    reasons = set()
    for doc in docs:
        for line, script, want in runnable_blocks(os.path.join(source, doc)):
            where = "%s:%d" % (doc, line)
            try:
                why = [m for m in
                       (missing(n, kernel_bench) for n in want["needs"]) if m]
            except Broken as e:
                print("FAIL %s: %s" % (where, e))
                return 1
            if why:
                print("SKIP %s: %s" % (where, "; ".join(why)))
                reasons.update(why)
                skipped += 1
                continue
            ok, text = run_block(script, want, work)
            if not ok:
                print("FAIL %s: the example %s" % (where, text))
                return 1
            print("ok   %s" % where)
            ran += 1
    print("%d example(s) ran, %d skipped" % (ran, skipped))
    if not skipped:
        return 0
    # A partly run page is not a pass: ctest shows it skipped, and the skip
    # report counts the reason (a Vulkan skip fails CI where one is listed).
    print("skip: %s (%d of %d example(s) not run)" %
          ("; ".join(sorted(reasons)), skipped, ran + skipped))
    return 77


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
