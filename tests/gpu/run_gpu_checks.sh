#!/usr/bin/env bash
# Runs the GPU checks and the side-by-side measurements on a GPU host
# (tests/gpu/README.md) from a staged runtime-only build (tests/gpu/stage.sh),
# and prints two tables last: every row (estimate, time taken, result), then
# the measurements against the anchors measured in the same run.
#
#   tests/gpu/run_gpu_checks.sh [STAGE_DIR]      (default: .carry/gpu)
#
# Every row runs under `timeout -k` with its own limit, so one hang costs
# that row, not the slot. Each row's output is streamed into $OUT/checks.log
# as it runs (the device tool brings $OUT back even when the call is cut),
# and the summary is rewritten after every row. $OUT gets at most eight flat
# files: summary.txt, checks.log, measure.txt, bench-cuda.json.gz,
# bench-vulkan.json.gz, anchors.json, overhead.log.
#
# On a host with an NVIDIA GPU (its driver is present) a row that finds no
# CUDA or Vulkan device FAILS: a SKIP there would hide a broken setup.
# Nothing is written outside a temporary work folder and $OUT: the Vulkan
# loader packages carried in .gl/ are unpacked there and found through
# LD_LIBRARY_PATH.
#
# Environment: KB_GPU_TUNE=1 adds the tune row (capped at KB_TUNE_TIMEOUT,
# 120 s); KB_GPU_ROWS=REGEX runs only the rows whose names match (a rerun of
# what failed); KB_GPU_EXAMPLE_FILTER=REGEX bounds the examples' bench rows
# to the benchmarks whose names match (bench --filter); KB_GPU_HANG_ROW=SECONDS
# adds a row that hangs, cut after SECONDS (the test of the limits).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
stage=$(cd "${1:-$root/.carry/gpu}" 2>/dev/null && pwd) ||
  { echo "run_gpu_checks.sh: no stage folder; run tests/gpu/stage.sh first" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/kb-gpu.XXXXXX")
# With $OUT set, every row's output is in $OUT/checks.log: the work folder
# (unpacked loaders, caches, the rows' result folders) goes at exit, so that
# runs on a shared machine do not pile up in $TMPDIR. Without $OUT it stays,
# as the only copy of the logs.
[ -n "${OUT:-}" ] && trap 'rm -rf "$work"' EXIT
logs=$work/logs
mkdir -p "$logs"
script_start=$(date +%s.%N)

gpu_host=0
if [ -e /proc/driver/nvidia/version ] || [ -e /dev/nvidiactl ]; then gpu_host=1; fi

# The Vulkan loader, glvnd and the X11 client libraries NVIDIA's ICD loads,
# where the host lacks them: unpacked into the work folder (no root needed,
# nothing else touched), with dpkg where there is one, else Python's ar and
# tar readers.
ldcache=$({ command -v ldconfig >/dev/null && ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null)
has_lib() { grep -q "$1 " <<<"$ldcache"; }
unpack_deb() { # deb dir
  if command -v dpkg >/dev/null; then dpkg -x "$1" "$2"; return; fi
  python3 - "$1" "$2" <<'PY'
import io, sys, tarfile
data = open(sys.argv[1], "rb").read()
pos = 8  # "!<arch>\n", then 60-byte member headers, members 2-aligned
while pos < len(data):
    name, size = data[pos:pos + 16].decode().strip(), int(data[pos + 48:pos + 58])
    body = data[pos + 60:pos + 60 + size]
    if name.startswith("data.tar"):
        tarfile.open(fileobj=io.BytesIO(body)).extractall(sys.argv[2])
    pos += 60 + size + (size & 1)
PY
}
if ls "$root"/.gl/*.deb >/dev/null 2>&1 &&
   ! { has_lib 'libvulkan\.so\.1' && has_lib 'libGLdispatch\.so\.0' &&
       has_lib 'libX11\.so\.6' && has_lib 'libXext\.so\.6'; }; then
  mkdir -p "$work/gl"
  for f in "$root"/.gl/*.deb; do unpack_deb "$f" "$work/gl" 2>>"$logs/setup.log"; done
  export LD_LIBRARY_PATH="$work/gl/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ]; then
  export VK_DRIVER_FILES=$icd
fi
export KB_CTS_KERNEL_DIR=$stage/kernels
# Each run measures the copy peak afresh: no figure cached by an older build.
export KB_CACHE_DIR=$work/cache

# What the loaders will find, written before the first row so that a run cut
# short still says why a driver did not come up.
{
  echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-} VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"
  echo "dpkg: $(command -v dpkg || echo none); python3: $(command -v python3 || echo none)"
  glx=$(ldconfig -p 2>/dev/null | awk '/libGLX_nvidia\.so\.0 /{print $NF; exit}')
  [ -n "$glx" ] && { echo "ldd $glx:"; ldd "$glx" 2>&1 | grep -E 'not found|X11|Xext|GLdispatch'; }
  VK_LOADER_DEBUG=error,warn,driver timeout 30 "$stage/bin/kernel-bench" devices 2>&1 | tail -40
} >>"$logs/setup.log" 2>&1
[ -n "${OUT:-}" ] && mkdir -p "$OUT" && : >"$OUT/checks.log" &&
  { echo "===== setup ====="; cat "$logs/setup.log"; } >>"$OUT/checks.log"
names=() results=() estimates=() took=()
summary() {
  printf '%-32s %6s %7s  %s\n' "row" "est s" "took s" "result"
  for i in "${!names[@]}"; do
    printf '%-32s %6s %7s  %s\n' "${names[$i]}" "${estimates[$i]}" "${took[$i]}" "${results[$i]}"
  done
  local total; total=$(awk -v a="$script_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
  local est=0; for e in "${estimates[@]}"; do est=$((est + e)); done
  printf '%-32s %6s %7s\n' "total" "$est" "$total"
  [ -f "$logs/measure.txt" ] && { echo; cat "$logs/measure.txt"; }
  return 0
}
finish_row() { # name estimate took verdict
  names+=("$1"); estimates+=("$2"); took+=("$3"); results+=("$4")
  [ -n "${OUT:-}" ] && summary >"$OUT/summary.txt"
  return 0
}
wanted() { [ -z "${KB_GPU_ROWS:-}" ] || grep -qE "$KB_GPU_ROWS" <<<"$1"; }

# row NAME ESTIMATE_S LIMIT_S -- command...
row() {
  local name=$1 est=$2 limit=$3; shift 4
  wanted "$name" || return 0
  local log="$logs/$(printf %s "$name" | tr -c 'A-Za-z0-9_.-' '_').log"
  local start; start=$(date +%s.%N)
  [ -n "${OUT:-}" ] && printf '\n===== %s (limit %ss) =====\n' "$name" "$limit" >>"$OUT/checks.log"
  # The command runs in a child bash (the row helpers are exported
  # functions), which timeout signals with its whole process group.
  if [ -n "${OUT:-}" ]; then
    timeout -k 5 "$limit" bash -c '"$@"' row "$@" 2>&1 | tee "$log" >>"$OUT/checks.log"
  else
    timeout -k 5 "$limit" bash -c '"$@"' row "$@" >"$log" 2>&1
  fi
  local rc=${PIPESTATUS[0]}
  local spent; spent=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  finish_row "$name" "$est" "$spent" "$(verdict "$rc" "$log" "$limit")"
}
verdict() { # rc log limit
  local rc=$1 log=$2 limit=$3
  local skipped; skipped=$(grep -c '^\[  SKIPPED \] .*(' "$log")
  local passed; passed=$(grep -c '^\[       OK \]' "$log")
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then echo "FAIL (cut at its ${limit}s limit)"
  elif [ "$rc" -eq 77 ] && [ $gpu_host = 1 ]; then echo "FAIL (no device on a GPU host: $(tail -1 "$log" | cut -c1-80))"
  elif [ "$rc" -eq 77 ]; then echo "SKIP"
  # A row's own skip: the host refuses what the row needs, on any host (the
  # helper's last line says what; e.g. counters kept from non-administrators).
  elif [ "$rc" -eq 75 ]; then echo "SKIP ($(tail -1 "$log" | cut -c1-100))"
  elif [ "$rc" -ne 0 ]; then echo "FAIL (exit $rc)"
  elif [ "$skipped" -gt 0 ] && [ "$passed" -eq 0 ] && [ $gpu_host = 1 ]; then echo "FAIL (all $skipped skipped on a GPU host)"
  elif [ "$skipped" -gt 0 ] && [ "$passed" -eq 0 ]; then echo "SKIP (all $skipped skipped)"
  elif [ "$skipped" -gt 0 ]; then echo "PASS ($passed, $skipped skipped)"
  else echo PASS
  fi
}
skip() { # name reason
  wanted "$1" || return 0
  [ -n "${OUT:-}" ] && printf '\n===== %s: SKIP (%s) =====\n' "$1" "$2" >>"$OUT/checks.log"
  finish_row "$1" 0 0 "SKIP ($2)"
}
gtest() { "$@" --gtest_color=no; }
expect_rc() { # want -- command...  (exit 0 when the command exits with |want|)
  local want=$1; shift 2
  "$@"; local rc=$?
  [ $rc -eq 77 ] && return 77
  [ $rc -eq "$want" ]
}
expect_output() { # rc pattern -- command...
  local want=$1 pattern=$2; shift 3
  local out; out=$("$@" 2>&1); local rc=$?
  echo "$out"
  [ $rc -eq 77 ] && return 77
  [ $rc -eq "$want" ] && grep -qE "$pattern" <<<"$out"
}
expect_counters() { # MIN_MB MAX_MB -- command...  (bench --counters)
  # Passes when the candidate's DRAM reads are within [MIN_MB, MAX_MB];
  # 75 (SKIP) when the host keeps counters from us or has no libcupti; a
  # build without CUPTI fails: that is ours to fix.
  local lo=$1 hi=$2; shift 3
  local out; out=$("$@" 2>&1); local rc=$?
  echo "$out"
  [ $rc -eq 77 ] && return 77
  [ $rc -eq 0 ] || return $rc
  local read; read=$(grep -m1 -oE '/candidate: DRAM [0-9.e+]+ MB read' <<<"$out" | grep -oE '[0-9.e+]+ MB' | cut -d' ' -f1)
  if [ -n "$read" ]; then
    awk -v r="$read" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(r >= lo && r <= hi) }' && return 0
    echo "candidate DRAM reads $read MB, expected $lo..$hi MB"
    return 1
  fi
  local why; why=$(grep -m1 -E '^counters: skipped: ' <<<"$out")
  case "$why" in
    *"built without CUPTI"*|"") return 1 ;;
  esac
  echo "${why#counters: }"
  return 75
}
keep() { # file name-in-$OUT
  [ -n "${OUT:-}" ] && [ -f "$1" ] && cp "$1" "$OUT/$2"
  return 0
}

export bin=$stage/bin mods=$stage/modules kb=$stage/bin/kernel-bench
export root stage work logs gpu_host
export -f gtest expect_rc expect_output expect_counters
if [ -n "${KB_GPU_HANG_ROW:-}" ]; then
  row "hang (limit test)"          1 "$KB_GPU_HANG_ROW" -- sleep 100000
fi
row "devices"                      2  30 -- "$kb" devices
source "$root/tests/gpu/rows.sh"

status=0
for r in "${results[@]}"; do case "$r" in FAIL*) status=1 ;; esac; done
[ -n "${OUT:-}" ] && summary >"$OUT/summary.txt"
if [ -n "${OUT:-}" ]; then echo "logs: \$OUT/checks.log"; else echo "logs: $logs"; fi
summary
exit $status
