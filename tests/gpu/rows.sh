# The rows of run_gpu_checks.sh, in order (sourced by it: `row NAME
# ESTIMATE_S LIMIT_S -- command...`). Estimates are on paper, from the
# host's figures (tests/gpu/README.md): the summary prints them beside the
# time each row took, so a run that would not fit twice in the slot shows.

# The card as the run found it (read only: clocks, power and modes are left
# as they are).
if command -v nvidia-smi >/dev/null; then
  row "nvidia-smi"                 1  20 -- nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv
fi

# Smoke: a driver that does not come up makes everything after it noise.
row "HAL CTS (cuda)"               4  60 -- gtest "$bin/hal_cts_cuda"
row "HAL CTS (vulkan)"             4  60 -- gtest "$bin/hal_cts_vulkan"

# The host's python3 with torch, triton and cupy (a virtual environment there).
py=python3
[ -x /opt/torch/.venv/bin/python3 ] && py=/opt/torch/.venv/bin/python3

# The measurements, side by side with the anchors of the same run. The copy
# is 2 GiB a buffer on the host: ~1 ms a sample, 0.5 s of sampling per
# mode and variant; the correctness sets (seeded inputs of 512 Mi floats,
# generated once, uploaded, read back and compared on the host) dominate:
# ~55 s a driver on the H200 (docs/gpu-results.md).
measure_bench() { # driver  (the report is kept whatever bench exits with)
  "$kb" bench "$stage/measure" --device "$1" --seeds 1 -o "$work/bench-$1"
  local rc=$?
  [ -f "$work/bench-$1/bench.json" ] && cp "$work/bench-$1/bench.json" "$logs/bench-$1.json"
  return $rc
}
export -f measure_bench
if [ -d "$stage/measure" ]; then
  row "measure: bench (cuda)"      55 150 -- measure_bench cuda
  # Every sample is in it: compressed, well under what $OUT brings back.
  gzip -kf "$logs/bench-cuda.json" 2>/dev/null && keep "$logs/bench-cuda.json.gz" bench-cuda.json.gz
  row "measure: bench (vulkan)"    60 150 -- measure_bench vulkan
  gzip -kf "$logs/bench-vulkan.json" 2>/dev/null && keep "$logs/bench-vulkan.json.gz" bench-vulkan.json.gz
  # Python imports (torch, triton) take most of it; do_bench runs ~0.2 s a
  # kernel.
  row "measure: anchors (do_bench)" 25 120 -- "$py" "$root/tests/gpu/measure/measure.py" anchors \
    --ptx-dir "$stage/measure/ptx" --copy-bytes "$(cat "$stage/measure/copy_bytes")" \
    --out "$logs/anchors.json" $([ $gpu_host = 1 ] && echo --gpu-host)
  keep "$logs/anchors.json" anchors.json
else
  skip "measure" "not staged (KB_MEASURE)"
fi
# Host cost per dispatch, the raw two-event figure, module loads (three
# child processes JIT the PTX cold, ~120 ms each), pipeline creation.
row "runtime_overhead bench"       10  90 -- "$bin/runtime_overhead" "$KB_CTS_KERNEL_DIR"
cp "$logs/runtime_overhead_bench.log" "$logs/overhead.log" 2>/dev/null
keep "$logs/overhead.log" overhead.log
if [ -d "$stage/measure" ] && wanted "measure"; then
  row "measure: side-by-side table"  1  20 -- "$py" "$root/tests/gpu/measure/measure.py" table \
    --cuda "$logs/bench-cuda.json" --vulkan "$logs/bench-vulkan.json" \
    --anchors "$logs/anchors.json" --overhead "$logs/overhead.log" \
    --copy-bytes "$(cat "$stage/measure/copy_bytes" 2>/dev/null || echo 2147483648)" \
    --out "$logs/measure.txt" $([ $gpu_host = 1 ] && echo --gpu-host)
  keep "$logs/measure.txt" measure.txt
fi

# The measurement engine on the device: the SM clock read on SM 0 in every
# sample, the CUDA graph protocol, the kernel-measured copy peak.
# (bench_measure_test is not here: it compiles its sample with glslc, which
# the host lacks.)
row "measurement engine tests"     8  90 -- gtest "$bin/bench_cuda_protocol_test"
row "copy peak probe tests"        8  90 -- gtest "$bin/copy_bandwidth_test"

# The drivers' own suites and the module runtime.
row "CUDA driver tests"            5  60 -- gtest "$bin/cuda_driver_test"
row "CUDA call order (fake)"       1  30 -- gtest "$bin/cuda_call_order_test"
row "Vulkan driver tests"          5  60 -- gtest "$bin/vulkan_driver_test"
row "Vulkan memory choice"         1  30 -- gtest "$bin/vulkan_memory_test"
row "module tests"                 5  60 -- gtest "$bin/module_test"
row "run ok (cuda)"                2  30 -- expect_rc 0 -- "$kb" run "$mods/ok" --device cuda
row "run wrong (cuda)"             2  30 -- expect_output 1 'index 37: generated' -- "$kb" run "$mods/wrong" --device cuda
row "run huge refused (cuda)"      1  30 -- expect_output 1 'before any driver call' -- "$kb" run "$mods/huge" --device cuda
row "run ok (vulkan)"              2  30 -- expect_rc 0 -- "$kb" run "$mods/ok" --device vulkan
row "run wrong (vulkan)"           2  30 -- expect_output 1 'index 37: generated' -- "$kb" run "$mods/wrong" --device vulkan

# The bundled examples end to end: run (outputs agree) and a quick bench
# (every benchmark checked and timed, the whole program too; only those
# matching KB_GPU_EXAMPLE_FILTER when it is set).
example_filter=()
[ -n "${KB_GPU_EXAMPLE_FILTER:-}" ] && example_filter=(--filter "$KB_GPU_EXAMPLE_FILTER")
for example in quickstart mlp; do
  [ -f "$stage/$example/program.kbm" ] || { skip "$example" "not staged"; continue; }
  for driver in cuda vulkan; do
    row "$example run ($driver)"   4  60 -- expect_output 0 'outputs agree' -- "$kb" run "$stage/$example" --device $driver
    row "$example bench ($driver)" 12 120 -- "$kb" bench "$stage/$example" --device $driver --quick \
      ${example_filter[@]+"${example_filter[@]}"} -o "$work/$example-$driver"
    # Each variant once inside its NVTX range / debug-utils label, for ncu
    # and nsys (docs/profiling.md).
    [ $example = quickstart ] &&
      row "$example profile ($driver)" 3 60 -- expect_output 0 'profiled \(correct\)' -- \
        "$kb" bench "$stage/$example" --device $driver --profile --filter saxpy -o "$work/$example-$driver-profile"
  done
done
# Hardware counters through CUPTI's range profiler (bench --counters): each
# variant's DRAM bytes, achieved occupancy and SM throughput after its
# timing. saxpy over 2^20 floats reads x and y once from a cold L2: 8.39 MB.
# A driver that keeps counters from this user, or no libcupti, is a SKIP
# that says so.
if [ -f "$stage/quickstart/program.kbm" ]; then
  row "quickstart counters (cuda)" 6 90 -- expect_counters 7.5 10.5 -- \
    "$kb" bench "$stage/quickstart" --device cuda --counters --quick --filter saxpy -o "$work/quickstart-cuda-counters"
fi
# The quickstart under compute-sanitizer's four tools: its kernels are
# clean, so no finding (the tool comes with the full CUDA toolkit only).
if [ -f "$stage/quickstart/program.kbm" ]; then
  if command -v compute-sanitizer >/dev/null || [ -x "${CUDA_PATH:-/usr/local/cuda}/bin/compute-sanitizer" ] ||
     [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
    row "quickstart sanitize (cuda)" 60 400 -- expect_output 0 'sanitizer: no findings' -- \
      "$kb" run "$stage/quickstart" --device cuda --sanitize
  else
    skip "quickstart sanitize (cuda)" "no compute-sanitizer (the full CUDA toolkit) on this host"
  fi
fi
if [ -f "$stage/tuned/program.kbm" ]; then
  # The matmul carries a variant tuned for "NVIDIA H200" on each backend: the
  # runtime must pick it on an H200 (the line names the model it saw) and
  # fall back to the default parameters, saying so, on any other device.
  tuned_choice() { # command...
    local out; out=$("$@" 2>&1); local rc=$?
    echo "$out"
    [ $rc -eq 77 ] && return 77
    [ $rc -eq 0 ] || return 1
    grep -q 'none tuned for NVIDIA H200' <<<"$out" && return 1
    grep -qE '\(tuned for NVIDIA H200\)|none tuned for .*\(tuned for: NVIDIA H200\)' <<<"$out"
  }
  export -f tuned_choice
  row "tuned variant (cuda)"       4  60 -- tuned_choice "$kb" run "$stage/tuned" --device cuda
  row "tuned variant (vulkan)"     4  60 -- tuned_choice "$kb" run "$stage/tuned" --device vulkan
fi

# Opt-in (KB_GPU_TUNE=1), with the compiler staged (KB_COMPILER): `kernel-bench
# tune` of the tiled matmul on CUDA, serial and pipelined, from empty caches
# (bench/tune_speed). nvcc needs gcc as its host compiler.
if [ "${KB_GPU_TUNE:-0}" = 1 ]; then
  nvcc=$(command -v nvcc || ls "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" /usr/local/cuda/bin/nvcc 2>/dev/null | head -1)
  if [ ! -f "$stage/compiler/libKBCompiler.so.xz" ]; then
    skip "tune pipelined vs serial" "the compiler is not staged (KB_COMPILER)"
  elif [ "${KB_TUNE_DEVICE:-cuda}" = cuda ] && [ -z "$nvcc" ]; then
    skip "tune pipelined vs serial" "no nvcc on PATH, \$CUDA_PATH/bin or /usr/local/cuda/bin"
  elif [ "${KB_TUNE_DEVICE:-cuda}" = cuda ] && ! command -v gcc >/dev/null; then
    skip "tune pipelined vs serial" "no gcc for nvcc's host code"
  else
    # Unpacked beside a copy of kernel-bench (where it looks first), outside
    # the stage, which stays as it was carried.
    cbin=$work/compiler
    mkdir -p "$cbin" && cp "$kb" "$cbin/"
    xz -dc "$stage/compiler/libKBCompiler.so.xz" >"$cbin/libKBCompiler.so" 2>>"$logs/setup.log" ||
      python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
        "$stage/compiler/libKBCompiler.so.xz" "$cbin/libKBCompiler.so" 2>>"$logs/setup.log"
    row "tune pipelined vs serial" 100 "${KB_TUNE_TIMEOUT:-120}" -- "$bin/tune_speed" \
      "$root/bench/tune_speed/matmul_tiled_lavapipe.tune.json" --seeds 5 \
      --kernel-bench "$cbin/kernel-bench" --kernel "$root/kernels/matmul_tiled" \
      --device "${KB_TUNE_DEVICE:-cuda}"
  fi
fi
