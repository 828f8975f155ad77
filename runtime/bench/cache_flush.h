//===- runtime/bench/cache_flush.h - How much to write to flush L2 --------===//
//
// A cold sample starts with a fill over at least twice the device's
// last-level cache, so nothing the kernel reads is still resident. Vulkan
// has no L2-size query, so the size comes from, in order:
//
//  1. --l2-size (the user knows best);
//  2. the driver (CUDA's L2_CACHE_SIZE attribute);
//  3. a table by device name (GPUs whose L2 is published);
//  4. CPU devices (lavapipe runs shaders on the host): the host's
//     last-level cache from sysfs;
//  5. a default of 256 MiB (Triton's flush size; larger than any GPU L2 we
//     know of, so safe if slow).
//
// The report records the size and which of these it came from.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_CACHE_FLUSH_H_
#define KB_RUNTIME_BENCH_CACHE_FLUSH_H_

#include "common/status.h"
#include "runtime/hal/buffer.h"
#include "runtime/hal/command_buffer.h"
#include "runtime/hal/device.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace kb::bench {

constexpr uint64_t kDefaultL2Bytes = uint64_t(256) << 20;

struct L2Size {
  uint64_t bytes = 0;
  /// "flag", "driver", "table", "host-llc", "default".
  std::string source;
  /// Bytes the flush fills: 2 x |bytes|, rounded up to 4.
  uint64_t flushBytes() const { return (2 * bytes + 3) / 4 * 4; }
};

/// |hostLlcBytes| is the host CPU's last-level cache (0 = unknown); pass
/// hostLastLevelCacheBytes() outside tests.
L2Size selectL2Size(const hal::DeviceProperties &device,
                    std::optional<uint64_t> override, uint64_t hostLlcBytes);

/// The largest cache size under /sys/devices/system/cpu/cpu0/cache; 0 when
/// unreadable.
uint64_t hostLastLevelCacheBytes();

/// Parses sysfs cache sizes ("32768K", "8M", "1024"). 0 when malformed.
uint64_t parseCacheSize(const std::string &text);

/// The buffer a flush of |l2| fills: flushBytes() within the device's
/// allocation limit; null when that leaves nothing to fill.
StatusOr<std::shared_ptr<hal::Buffer>> allocateFlushBuffer(hal::Device &device,
                                                           const L2Size &l2);

/// Records the flush into |commands|: |flush| filled, then a barrier, so
/// that what is recorded next finds none of its data in the L2. Records
/// nothing when |flush| is null.
Status recordFlush(hal::CommandBuffer &commands, hal::Buffer *flush);

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_CACHE_FLUSH_H_
