//===- common/ustar.h - A strict POSIX ustar archive reader and writer ----===//
//
// Bundles (`kernel-bench bundle`) are uncompressed POSIX ustar archives
// because the runtime-only kernel-bench that reads them on GPU hosts must not
// gain a shared-library dependency (libarchive, zlib): a ustar archive is
// 512-byte headers and file bytes, read here with the standard library alone,
// and `tar -xf` / `tar -tvf` still read it anywhere (docs/ci.md says why).
//
// The reader trusts nothing: only regular files (links, directories, devices,
// pax and GNU extension headers are refused by kind), only relative member
// names without `.`/`..` components or empty components, each name at most
// once, header checksums checked, sizes checked against the bytes that are
// really there (a truncated archive is refused before anything is
// allocated for it), the end-of-archive marker required and nothing but zero
// padding after it. Every error names the archive and the member.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_USTAR_H_
#define KB_COMMON_USTAR_H_

#include "common/status.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kb::ustar {

inline constexpr size_t kBlockSize = 512;

/// One member to write: a regular file |name| (relative, '/'-separated)
/// holding |bytes|.
struct WriteMember {
  std::string name;
  std::string bytes;
};

/// Whether |name| is a member name the reader accepts (relative, no `.`,
/// `..` or empty components, no trailing '/', fits a ustar header); "" when
/// it is, else why not.
std::string checkMemberName(std::string_view name);

/// Writes |members| in order as a ustar archive to |path|: mode 0644, owner
/// 0/0, mtime 0, so the same members always give the same bytes. Written to
/// a temporary file beside |path| and renamed, so |path| is never
/// half-written. InvalidArgument for a name checkMemberName refuses or a
/// duplicate; Internal/PermissionDenied-like errors from the file system as
/// Unavailable with the path.
Status writeArchive(const std::filesystem::path &path,
                    const std::vector<WriteMember> &members);

/// Calls |visit(name, bytes)| for each member of the archive at |path|, in
/// order, after checking its header and that all of its bytes are present.
/// Stops at the first error (from the archive or from |visit|). The whole
/// archive is validated up to its end marker before this returns ok. Holds
/// each member in memory: for small, trusted archives (tests); what reads
/// hostile archives uses streamArchive.
Status readArchive(const std::filesystem::path &path,
                   const std::function<Status(const std::string &name,
                                              std::string_view bytes)> &visit);

/// The most bytes streamArchive hands to a chunk sink at once.
inline constexpr size_t kStreamChunkBytes = size_t(1) << 20;

/// Streams the current member's bytes to |sink| in chunks of at most
/// kStreamChunkBytes; stops at the sink's first error.
using ChunkSink = std::function<Status(std::string_view chunk)>;
using MemberBytes = std::function<Status(const ChunkSink &sink)>;

/// Like readArchive, but |visit(name, size, read)| sees each member's
/// checked header before any of its bytes are read: it can refuse the
/// member by name and size (nothing read, nothing allocated), read it
/// through |read| in bounded chunks, or return ok without reading (the
/// bytes are skipped). Memory stays bounded whatever the member sizes.
Status
streamArchive(const std::filesystem::path &path,
              const std::function<Status(const std::string &name, uint64_t size,
                                         const MemberBytes &read)> &visit);

} // namespace kb::ustar

#endif // KB_COMMON_USTAR_H_
