//===- common/sha256.h - SHA-256 (FIPS 180-4) ----------------------------===//
//
// The one hashing helper of the project: content-addressed cache keys,
// output checksums in build.json, reproducibility checks. Dependency-free so
// that compiler/ and runtime/ can use it too.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_SHA256_H_
#define KB_COMMON_SHA256_H_

#include "common/status.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace kb {

/// Incremental SHA-256. Feed bytes with update(), then call digest() or
/// hexDigest() once; the object must not be updated afterwards.
class Sha256 {
public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();

  void update(const void *data, size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }

  /// Finishes the hash. Calling it twice returns the same digest.
  Digest digest();
  /// 64 lower-case hex characters.
  std::string hexDigest();

private:
  void compress(const uint8_t *block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_;
  size_t bufferSize_ = 0;
  uint64_t totalBytes_ = 0;
  bool finished_ = false;
  Digest digest_{};
};

/// Lower-case hex of |digest|.
std::string toHex(const Sha256::Digest &digest);

/// sha256 of |bytes| as hex.
std::string sha256Hex(std::string_view bytes);

/// sha256 of a file's contents as hex, read through kb::InputFile (a FIFO
/// or a device is refused). NotFound when it cannot be opened,
/// DataLoss on a read error.
StatusOr<std::string> sha256File(const std::filesystem::path &path);

} // namespace kb

#endif // KB_COMMON_SHA256_H_
