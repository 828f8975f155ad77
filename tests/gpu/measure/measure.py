#!/usr/bin/env python3
"""The GPU script's side-by-side measurements (tests/gpu/run_gpu_checks.sh).

  measure.py anchors --ptx-dir DIR --copy-bytes B --out anchors.json
      Times, in this process, what kernel authors trust: the same PTX that
      `kernel-bench bench` timed, loaded with cupy.RawModule and timed by
      triton.testing.do_bench (its own L2 flush before every call; asked for
      the median, as our table shows medians), and torch's copy_ of the same
      bytes. Exits 77 with the reason when cupy, torch or triton is missing.

  measure.py table --cuda BENCH.json --vulkan BENCH.json --anchors A.json
                   --overhead overhead.log [--gpu-host] [--out table.txt]
      One row per target: ours, the anchor, their ratio, the target and
      PASS / FAIL / SKIP. Without --gpu-host a missing figure is SKIP (the
      dry run on a machine without a GPU); with it, FAIL. Exits 1 when a row
      fails.
"""
import argparse
import json
import math
import os
import re
import sys

# Figures of the three benchmarks, by kernel name (tests/gpu/measure/project.sh).
KERNELS = ("copy_big", "copy_4k", "empty")


def launch_shape(name, n):
    """Grid and block of each kernel, as kernel-bench launches it."""
    if name == "empty":
        return (1, 1, 1), (32, 1, 1)
    invocations = n // 4  # one float4 per invocation
    return ((invocations + 255) // 256, 1, 1), (256, 1, 1)


def anchors(args):
    try:
        import cupy
        import torch
        import triton.testing
    except ImportError as e:
        print(f"{'FAIL' if args.gpu_host else 'SKIP'}: {e} (the anchors need "
              f"cupy, torch and triton; python3 is {sys.executable})")
        return 1 if args.gpu_host else 77
    results = {"device": torch.cuda.get_device_name(0),
               "torch": torch.__version__, "triton": _version("triton"),
               "cupy": cupy.__version__, "kernels": {}}
    n_big = args.copy_bytes // 4
    sizes = {"copy_big": n_big, "copy_4k": 1024, "empty": 32}
    for name in KERNELS:
        ptx = os.path.join(args.ptx_dir, f"{name}.ptx")
        entry = "empty" if name == "empty" else "copy"
        module = cupy.RawModule(path=ptx)
        kernel = module.get_function(entry)
        n = sizes[name]
        # torch allocates and checks, cupy only launches: no kernel of
        # cupy's own is compiled (NVRTC) on the way.
        src_t = torch.ones(max(n, 1), dtype=torch.float32, device="cuda")
        dst_t = torch.zeros_like(src_t)
        src, dst = cupy.asarray(src_t), cupy.asarray(dst_t)
        grid, block = launch_shape(name, n)
        if name == "empty":
            call = lambda: kernel(grid, block, (dst, cupy.uint32(n)))
        else:
            call = lambda: kernel(grid, block, (src, dst, cupy.uint32(n)))
        call()
        cupy.cuda.runtime.deviceSynchronize()
        if name != "empty" and not torch.equal(dst_t, src_t):
            print(f"FAIL: {name}: the PTX did not copy")
            return 1
        ms = triton.testing.do_bench(call, warmup=25, rep=args.rep_ms,
                                     return_mode="median")
        results["kernels"][name] = {"do_bench_median_ns": ms * 1e6,
                                    "bytes": 8 * n if name != "empty" else 0}
        del src, dst, src_t, dst_t
    # torch's own copy of the same bytes (read + write), as a second anchor.
    src = torch.ones(n_big, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)
    ms = triton.testing.do_bench(lambda: dst.copy_(src), warmup=25,
                                 rep=args.rep_ms, return_mode="median")
    results["torch_copy"] = {"do_bench_median_ns": ms * 1e6, "bytes": 8 * n_big}
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)
    for name, k in results["kernels"].items():
        print(f"do_bench {name}: {k['do_bench_median_ns'] / 1e3:.2f} us")
    print(f"do_bench torch copy_: {ms * 1e3:.2f} us")
    return 0


def _version(module):
    try:
        import importlib.metadata as md
        return md.version(module)
    except Exception:  # a version is informative only
        return "unknown"


def load_bench(path):
    """{(kernel, variant role, mode): timing} of a bench.json; {} if absent."""
    if not path or not os.path.isfile(path):
        return {}, None
    with open(path) as f:
        report = json.load(f)
    out = {}
    for b in report.get("benchmarks", []):
        kernel = next((k for k in KERNELS if b["name"].startswith(k + "_")),
                      None)
        if kernel is None or b.get("status") != "ok":
            continue
        for v in b.get("variants", []):
            for t in v.get("timings", []):
                out[(kernel, v["role"], t["mode"])] = t
    return out, report


def overhead_figures(path):
    figures = {}
    if not path or not os.path.isfile(path):
        return figures
    text = open(path).read()
    patterns = {
        "hal_us": r"HAL ([0-9.]+) us",
        "raw_us": r"raw cuLaunchKernel ([0-9.]+) us",
        "two_event_us": r"two events: ([0-9.]+) us",
        "ptx_cold_us": r"PTX cold ([0-9.]+) us",
    }
    for key, pattern in patterns.items():
        m = re.search(pattern, text)
        if m:
            figures[key] = float(m.group(1))
    return figures


class Table:
    def __init__(self, gpu_host):
        self.rows = []
        self.gpu_host = gpu_host

    def missing(self, what, why):
        verdict = "FAIL" if self.gpu_host else "SKIP"
        self.rows.append((what, "-", "-", "-", "-", f"{verdict} ({why})"))

    def add(self, what, ours, anchor, ratio, target, ok):
        self.rows.append((what, ours, anchor, ratio, target,
                          "PASS" if ok else "FAIL"))

    def info(self, what, ours, anchor, ratio):
        self.rows.append((what, ours, anchor, ratio, "-", "info"))

    def render(self):
        head = ("measurement", "ours", "anchor", "ratio", "target", "result")
        rows = [head] + self.rows
        widths = [max(len(str(r[i])) for r in rows) for i in range(5)]
        lines = []
        for r in rows:
            cells = [str(r[i]).ljust(widths[i]) for i in range(5)]
            lines.append("  ".join(cells) + "  " + r[5])
        return "\n".join(lines)


def size_label(nbytes):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale and nbytes % scale == 0:
            return f"{nbytes // scale} {unit}"
    return f"{nbytes} B"


def us(ns):
    return f"{ns / 1e3:.2f} us"


def median(timing):
    return timing["summary"]["median"]


def copy_rows(table, cuda, vulkan, anchors_json, copy_bytes):
    size = "copy " + size_label(copy_bytes)
    kernels = anchors_json.get("kernels", {}) if anchors_json else {}
    c = cuda.get(("copy_big", "candidate", "cold"))
    v = vulkan.get(("copy_big", "candidate", "cold"))
    db = kernels.get("copy_big")
    if c and db:
        ours, ref = median(c), db["do_bench_median_ns"]
        table.add(f"{size} cuda cold vs do_bench (same PTX)", us(ours),
                  us(ref), f"{ours / ref:.3f}", "0.99..1.01",
                  0.99 <= ours / ref <= 1.01)
    else:
        table.missing(f"{size} cuda cold vs do_bench",
                      "no cuda timing" if not c else "no do_bench anchor")
    if c:
        gbps = 2 * copy_bytes / median(c)  # read + written, per ns = GB/s
        table.add(f"{size} cuda cold bandwidth", f"{gbps:.0f} GB/s", "-",
                  "-", ">= 3900 GB/s", gbps >= 3900)
        noise = c["summary"]["relative_stdev"]
        table.add(f"{size} cuda cold noise", f"{noise * 100:.2f} %", "-",
                  "-", "<= 0.5 %", noise <= 0.005)
    if c and v:
        r = median(v) / median(c)
        table.add(f"{size} vulkan cold vs cuda cold", us(median(v)),
                  us(median(c)), f"{r:.3f}", "0.98..1.02", 0.98 <= r <= 1.02)
    elif v:
        table.missing(f"{size} vulkan cold vs cuda cold", "no cuda timing")
    else:
        table.missing(f"{size} vulkan cold", "no vulkan timing")
    torch_copy = anchors_json.get("torch_copy") if anchors_json else None
    if c and torch_copy:
        ref = torch_copy["do_bench_median_ns"]
        table.info(f"{size} cuda cold vs torch copy_ (do_bench)",
                   us(median(c)), us(ref), f"{median(c) / ref:.3f}")
    for driver, bench in (("cuda", cuda), ("vulkan", vulkan)):
        hot = bench.get(("copy_big", "candidate", "hot"))
        cold = bench.get(("copy_big", "candidate", "cold"))
        if hot and cold:
            table.info(f"{size} {driver} hot vs cold", us(median(hot)),
                       us(median(cold)), f"{median(hot) / median(cold):.3f}")


def latency_rows(table, cuda, vulkan, anchors_json, overhead):
    kernels = anchors_json.get("kernels", {}) if anchors_json else {}
    raw = overhead.get("two_event_us")
    for name, what in (("empty", "empty kernel"), ("copy_4k", "copy 4 KiB")):
        c = cuda.get((name, "candidate", "cold"))
        if c and raw:
            ours = median(c)
            table.add(f"{what} cuda cold vs raw two-event empty", us(ours),
                      f"{raw:.2f} us", f"{ours / (raw * 1e3):.3f}", "<= 0.6",
                      ours <= 0.6 * raw * 1e3)
        else:
            table.missing(f"{what} cuda cold vs raw two-event",
                          "no cuda timing" if not c else "no raw figure")
        db = kernels.get(name)
        if c and db:
            table.info(f"{what} cuda cold vs do_bench", us(median(c)),
                       us(db["do_bench_median_ns"]),
                       f"{median(c) / db['do_bench_median_ns']:.3f}")
        for driver, bench in (("cuda", cuda), ("vulkan", vulkan)):
            hot = bench.get((name, "candidate", "hot"))
            if hot:
                table.info(f"{what} {driver} hot", us(median(hot)), "-", "-")
        v = vulkan.get((name, "candidate", "cold"))
        if v:
            table.info(f"{what} vulkan cold", us(median(v)),
                       us(median(c)) if c else "-",
                       f"{median(v) / median(c):.3f}" if c else "-")


def overhead_rows(table, overhead):
    if "hal_us" in overhead and "raw_us" in overhead:
        r = overhead["hal_us"] / overhead["raw_us"]
        table.add("HAL dispatch vs raw cuLaunchKernel (batches of 100)",
                  f"{overhead['hal_us']:.2f} us", f"{overhead['raw_us']:.2f} us",
                  f"{r:.2f}", "<= 1.10", r <= 1.10)
    else:
        table.missing("HAL dispatch vs raw cuLaunchKernel", "no cuda figure")
    if "ptx_cold_us" in overhead:
        table.info("cold PTX load (JIT)", f"{overhead['ptx_cold_us'] / 1e3:.1f} ms",
                   "-", "-")


def table(args):
    cuda, _ = load_bench(args.cuda)
    vulkan, _ = load_bench(args.vulkan)
    anchors_json = None
    if args.anchors and os.path.isfile(args.anchors):
        with open(args.anchors) as f:
            anchors_json = json.load(f)
    overhead = overhead_figures(args.overhead)
    t = Table(args.gpu_host)
    copy_rows(t, cuda, vulkan, anchors_json, args.copy_bytes)
    latency_rows(t, cuda, vulkan, anchors_json, overhead)
    overhead_rows(t, overhead)
    text = t.render()
    if anchors_json:
        text += (f"\nanchors: {anchors_json['device']}, torch {anchors_json['torch']},"
                 f" triton {anchors_json['triton']}, cupy {anchors_json['cupy']}")
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 1 if any(r[5].startswith("FAIL") for r in t.rows) else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser("anchors")
    a.add_argument("--ptx-dir", required=True)
    a.add_argument("--copy-bytes", type=int, required=True)
    a.add_argument("--rep-ms", type=int, default=200)
    a.add_argument("--out", required=True)
    a.add_argument("--gpu-host", action="store_true",
                   help="a missing package is a failure, not a skip")
    t = sub.add_parser("table")
    for flag in ("--cuda", "--vulkan", "--anchors", "--overhead", "--out"):
        t.add_argument(flag)
    t.add_argument("--copy-bytes", type=int, default=2 << 30)
    t.add_argument("--gpu-host", action="store_true")
    args = parser.parse_args()
    return anchors(args) if args.command == "anchors" else table(args)


if __name__ == "__main__":
    sys.exit(main())
