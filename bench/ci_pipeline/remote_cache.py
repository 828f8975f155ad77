#!/usr/bin/env python3
"""The remote-cache figure: a cold build with a warm shared cache.

Builds the quickstart's kernel jobs (examples/quickstart, --kernels-only:
every bundled kernel for cuda:sm_90 and vulkan:1.2) with an EMPTY local cache
every time, each build from its own copy of the project at its own path (one
runner each), against a real nginx WebDAV server started here on 127.0.0.1
(docs/remote-cache.md), and prints:

  * anchor: cold build, empty server (compiles everything, uploads it)
  * cold build, warm server (a fresh runner: downloads everything),
    median of --rounds                           target: >= 10x faster

and checks that the warm builds hit the server for every job and published
byte-identical outputs. nginx runs in the foreground as one process and is
stopped at exit, on error and on SIGINT/SIGTERM.

Not a test: timings depend on the machine. Run it with
  cmake --build BUILD --target bench-remote-cache
or directly:
  bench/ci_pipeline/remote_cache.py --kernel-bench BUILD/workbench/kernel-bench

Needs Debian's nginx, nvcc/ptxas, glslc/spirv-val; Python 3 stdlib only.
"""

import argparse
import filecmp
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NGINX = "/usr/sbin/nginx"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nginx(prefix):
    """nginx serving prefix/data at /cache/ with WebDAV PUT; returns
    (process, url)."""
    (prefix / "data").mkdir(parents=True)
    (prefix / "tmp").mkdir()
    for attempt in range(3):
        port = free_port()
        temps = "".join(f"  {t}_temp_path {prefix}/tmp/{t};\n"
                        for t in ("client_body", "proxy", "fastcgi", "uwsgi",
                                  "scgi"))
        (prefix / "nginx.conf").write_text(
            "daemon off;\nmaster_process off;\nworker_processes 1;\n"
            f"pid {prefix}/nginx.pid;\nerror_log {prefix}/error.log;\n"
            "events { worker_connections 256; }\n"
            f"http {{\n  access_log off;\n{temps}"
            "  client_max_body_size 0;\n"
            f"  server {{\n    listen 127.0.0.1:{port};\n"
            f"    location /cache/ {{ alias {prefix}/data/; dav_methods PUT; "
            "create_full_put_path on; }\n  }\n}\n")
        proc = subprocess.Popen(
            [NGINX, "-p", f"{prefix}/", "-c", str(prefix / "nginx.conf"),
             "-e", str(prefix / "error.log")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), 0.2):
                    return proc, f"http://127.0.0.1:{port}/cache"
            except OSError:
                time.sleep(0.02)
        stop(proc)
    log = prefix / "error.log"
    sys.exit("remote_cache: nginx did not start:\n" +
             (log.read_text() if log.exists() else "(no error.log)"))


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def checkout(scratch, name):
    """A copy of the quickstart and the kernels it names at its own path, as
    another runner would have it; returns the project directory."""
    root = scratch / name
    shutil.copytree(REPO / "examples" / "quickstart",
                    root / "examples" / "quickstart")
    shutil.copytree(REPO / "kernels", root / "kernels")
    return root / "examples" / "quickstart"


def build(kernel_bench, project, url, cache_dir, out_dir, jobs):
    """One `kernel-bench build --kernels-only` with an empty local cache;
    returns (seconds, build.json)."""
    env = dict(os.environ, KB_REMOTE_CACHE=url)
    for name in ("KB_REMOTE_CACHE_USER", "KB_REMOTE_CACHE_PASSWORD", "NETRC"):
        env.pop(name, None)
    argv = [kernel_bench, "build", str(project),
            "--kernels-only", "-j", str(jobs), "--cache-dir", str(cache_dir),
            "-o", str(out_dir)]
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"remote_cache: `{' '.join(argv)}` failed "
                 f"(exit {proc.returncode}):\n{proc.stdout}")
    report = json.loads((out_dir / "build.json").read_text())
    remote = report["options"]["cache"]["remote"]
    if remote is None or remote["warnings"]:
        sys.exit(f"remote_cache: the server was not used cleanly: {remote}\n"
                 f"{proc.stdout}")
    return seconds, report


def same_outputs(a, b):
    left = sorted(p.relative_to(a) for p in (a / "kernels").rglob("*")
                  if p.is_file())
    right = sorted(p.relative_to(b) for p in (b / "kernels").rglob("*")
                   if p.is_file())
    return left == right and all(
        filecmp.cmp(a / p, b / p, shallow=False) for p in left)


def measure(kernel_bench, rounds, jobs):
    """Runs the measurement; returns its figures as a dict (cold_s, warm_s,
    warm_times, jobs, stored_bytes, parallel). Exits on a broken run."""
    scratch = Path(tempfile.mkdtemp(prefix="kb-bench-remote-"))
    nginx = None
    try:
        nginx, url = start_nginx(scratch / "nginx")
        cold_s, cold = build(kernel_bench, checkout(scratch, "runner-0"),
                             url, scratch / "cache-cold",
                             scratch / "out-cold", jobs)
        count = cold["totals"]["jobs"]
        uploads = cold["options"]["cache"]["remote"]["uploads"]
        if cold["totals"]["cache_hits"] != 0 or uploads != 2 * count:
            sys.exit(f"remote_cache: the cold build was not cold or did not "
                     f"upload every job: {cold['totals']}, uploads {uploads}")
        warm_times = []
        for i in range(rounds):
            out = scratch / f"out-warm-{i}"
            project = checkout(scratch, f"runner-{i + 1}")
            seconds, warm = build(kernel_bench, project, url,
                                  scratch / f"cache-warm-{i}", out, jobs)
            remote = warm["options"]["cache"]["remote"]
            if warm["totals"]["cache_hits"] != count or remote["hits"] != count:
                sys.exit(f"remote_cache: warm build {i} did not take every "
                         f"job from the server: {warm['totals']}, {remote}")
            if not same_outputs(scratch / "out-cold", out):
                sys.exit(f"remote_cache: warm build {i} published different "
                         "outputs than the cold build")
            warm_times.append(seconds)
        stored = sum(p.stat().st_size
                     for p in (scratch / "nginx" / "data").rglob("*")
                     if p.is_file())
    finally:
        if nginx:
            stop(nginx)
        shutil.rmtree(scratch, ignore_errors=True)
    return {"cold_s": cold_s, "warm_s": statistics.median(warm_times),
            "warm_times": warm_times, "jobs": count, "stored_bytes": stored,
            "parallel": jobs}


def print_figures(fig):
    ratio = fig["cold_s"] / fig["warm_s"]
    rounds = len(fig["warm_times"])
    print(f"quickstart kernel jobs: {fig['jobs']} (-j{fig['parallel']}), "
          f"server holds {fig['stored_bytes'] / 1024:.0f} KiB after the cold "
          "build")
    print(f"anchor: cold build, empty server (compile + upload): "
          f"{fig['cold_s']:8.3f} s")
    print(f"cold build, warm server (download), median of {rounds}: "
          f"{fig['warm_s']:8.3f} s   "
          f"({', '.join(f'{t:.3f}' for t in fig['warm_times'])})")
    print(f"ratio: {ratio:.1f}x faster   target: >= 10x   "
          f"{'MET' if ratio >= 10 else 'NOT MET'}")


def handle_signals():
    """SIGTERM/SIGINT unwind through `finally`: nginx never outlives us."""
    def interrupted(signum, _frame):
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel-bench", required=True,
                        help="the kernel-bench binary (built with the "
                             "remote cache)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="warm-server builds, each on a fresh local cache")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    args = parser.parse_args()
    if not os.access(NGINX, os.X_OK):
        print(f"remote_cache: SKIP: {NGINX} is not installed "
              "(Debian package nginx)")
        return 77
    handle_signals()
    print_figures(measure(args.kernel_bench, args.rounds, args.jobs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
