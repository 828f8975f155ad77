//===- common/ustar.cpp - A strict POSIX ustar archive reader and writer --===//
//
// Header layout (POSIX.1-1988 ustar, offsets in bytes): name 0/100, mode
// 100/8, uid 108/8, gid 116/8, size 124/12, mtime 136/12, chksum 148/8,
// typeflag 156, linkname 157/100, magic 257/6 ("ustar\0"), version 263/2
// ("00"), uname 265/32, gname 297/32, devmajor 329/8, devminor 337/8,
// prefix 345/155.
//
//===----------------------------------------------------------------------===//
#include "common/ustar.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <set>

namespace kb::ustar {

namespace fs = std::filesystem;

namespace {

using Block = std::array<char, kBlockSize>;

constexpr size_t kNameSize = 100, kPrefixSize = 155;
// 11 octal digits: the largest size a plain ustar header holds (8 GiB - 1).
constexpr uint64_t kMaxMemberSize = 077777777777ULL;

void putOctal(Block &b, size_t offset, size_t width, uint64_t value) {
  // width - 1 digits, zero-padded, then NUL.
  for (size_t i = width - 1; i-- > 0; value >>= 3)
    b[offset + i] = static_cast<char>('0' + (value & 7));
  b[offset + width - 1] = '\0';
}

unsigned checksum(const Block &b) {
  unsigned sum = 0;
  for (size_t i = 0; i < kBlockSize; ++i)
    sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(b[i]);
  return sum;
}

/// Splits |name| into ustar's prefix and name fields at a '/'.
bool splitName(std::string_view name, std::string_view &prefix,
               std::string_view &last) {
  if (name.size() <= kNameSize) {
    prefix = {};
    last = name;
    return true;
  }
  for (size_t slash = name.find('/'); slash != std::string_view::npos;
       slash = name.find('/', slash + 1))
    if (slash <= kPrefixSize && name.size() - slash - 1 <= kNameSize) {
      prefix = name.substr(0, slash);
      last = name.substr(slash + 1);
      return true;
    }
  return false;
}

Block header(const std::string &name, uint64_t size) {
  Block b{};
  std::string_view prefix, last;
  splitName(name, prefix, last); // checked by checkMemberName
  std::memcpy(&b[0], last.data(), last.size());
  std::memcpy(&b[345], prefix.data(), prefix.size());
  putOctal(b, 100, 8, 0644);
  putOctal(b, 108, 8, 0);
  putOctal(b, 116, 8, 0);
  putOctal(b, 124, 12, size);
  putOctal(b, 136, 12, 0);
  b[156] = '0';
  std::memcpy(&b[257], "ustar", 6); // with its NUL
  b[263] = '0';
  b[264] = '0';
  putOctal(b, 148, 7, checksum(b));
  b[155] = ' ';
  return b;
}

/// A NUL-terminated (or full-width) text field.
std::string_view field(const Block &b, size_t offset, size_t width) {
  const char *start = &b[offset];
  return std::string_view(start, strnlen(start, width));
}

/// An octal number field: optional leading spaces, digits, then NUL or
/// spaces to the end. False for anything else (base-256, garbage).
bool parseOctal(const Block &b, size_t offset, size_t width, uint64_t &out) {
  size_t i = offset, end = offset + width;
  while (i < end && b[i] == ' ')
    ++i;
  uint64_t value = 0;
  size_t digits = 0;
  for (; i < end && b[i] >= '0' && b[i] <= '7'; ++i, ++digits) {
    if (value > (UINT64_MAX >> 3))
      return false;
    value = value * 8 + static_cast<uint64_t>(b[i] - '0');
  }
  for (; i < end; ++i)
    if (b[i] != ' ' && b[i] != '\0')
      return false;
  out = value;
  return digits > 0;
}

const char *kindName(char type) {
  switch (type) {
  case '1':
    return "a hard link";
  case '2':
    return "a symbolic link";
  case '3':
    return "a character device";
  case '4':
    return "a block device";
  case '5':
    return "a directory";
  case '6':
    return "a FIFO";
  case '7':
    return "a contiguous file";
  case 'x':
  case 'g':
    return "a pax extended header";
  case 'L':
  case 'K':
    return "a GNU long-name header";
  default:
    return "an entry of an unknown kind";
  }
}

bool allZero(const Block &b) {
  for (char c : b)
    if (c != '\0')
      return false;
  return true;
}

/// Reads and checks the header of the member at |offset|; sets |name| and
/// |size|. |where| is "ARCHIVE: member at byte N" for messages.
Status checkHeader(const Block &b, const std::string &where, std::string &name,
                   uint64_t &size) {
  uint64_t stored = 0;
  if (!parseOctal(b, 148, 8, stored) || stored != checksum(b))
    return dataLoss(where +
                    ": bad header checksum (not a tar archive, or corrupted)");
  if (std::memcmp(&b[257], "ustar", 6) != 0 || b[263] != '0' || b[264] != '0')
    return invalidArgument(
        where + ": not a POSIX ustar header (GNU or v7 tar format); " +
        "bundles are written by `kernel-bench bundle`");
  std::string_view prefix = field(b, 345, kPrefixSize);
  name = std::string(prefix) + (prefix.empty() ? "" : "/") +
         std::string(field(b, 0, kNameSize));
  char type = b[156];
  if (type != '0' && type != '\0')
    return invalidArgument(where + " (`" + name + "`): " + kindName(type) +
                           "; only regular files are accepted");
  if (std::string why = checkMemberName(name); !why.empty())
    return invalidArgument(where + ": member name `" + name + "` " + why);
  if (!parseOctal(b, 124, 12, size))
    return invalidArgument(where + " (`" + name +
                           "`): the size field is not an octal number");
  return okStatus();
}

} // namespace

std::string checkMemberName(std::string_view name) {
  if (name.empty())
    return "is empty";
  if (name.front() == '/')
    return "is an absolute path";
  if (name.back() == '/')
    return "ends with '/' (a directory)";
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string_view::npos)
      end = name.size();
    std::string_view part = name.substr(start, end - start);
    if (part.empty())
      return "has an empty path component ('//')";
    if (part == "." || part == "..")
      return "has a `" + std::string(part) +
             "` component (it could point outside the extraction directory)";
    start = end + 1;
  }
  for (char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return "contains a control character";
  std::string_view prefix, last;
  if (!splitName(name, prefix, last))
    return "is too long for a ustar header (at most 100 bytes after the "
           "last '/' split point, 155 before it)";
  return "";
}

Status writeArchive(const fs::path &path,
                    const std::vector<WriteMember> &members) {
  std::set<std::string> seen;
  for (const WriteMember &m : members) {
    if (std::string why = checkMemberName(m.name); !why.empty())
      return invalidArgument("cannot add `" + m.name + "` to " + path.string() +
                             ": the name " + why);
    if (!seen.insert(m.name).second)
      return invalidArgument("cannot add `" + m.name + "` to " + path.string() +
                             " twice");
    if (m.bytes.size() > kMaxMemberSize)
      return invalidArgument("`" + m.name +
                             "` is larger than a ustar "
                             "member can be (8 GiB)");
  }
  fs::path partial = path;
  partial += ".partial-" + std::to_string(::getpid());
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out)
      return unavailable("cannot write " + partial.string() + ": " +
                         std::strerror(errno));
    static const Block zero{};
    for (const WriteMember &m : members) {
      Block h = header(m.name, m.bytes.size());
      out.write(h.data(), h.size());
      out.write(m.bytes.data(), static_cast<std::streamsize>(m.bytes.size()));
      size_t pad = (kBlockSize - m.bytes.size() % kBlockSize) % kBlockSize;
      out.write(zero.data(), static_cast<std::streamsize>(pad));
    }
    out.write(zero.data(), zero.size()); // end of archive: two zero blocks
    out.write(zero.data(), zero.size());
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(partial, ec);
      return unavailable("cannot write " + partial.string() + ": " +
                         std::strerror(errno));
    }
  }
  std::error_code ec;
  fs::rename(partial, path, ec);
  if (ec) {
    fs::remove(partial, ec);
    return unavailable("cannot write " + path.string() + ": " + ec.message());
  }
  return okStatus();
}

namespace {

/// The archive being read: its stream, its size and the offset of the next
/// block.
struct ArchiveCursor {
  std::ifstream in;
  std::string archive;
  uint64_t fileSize = 0, offset = 0;
  Block b;

  bool readBlock() {
    if (fileSize - offset < kBlockSize)
      return false;
    in.read(b.data(), b.size());
    offset += kBlockSize;
    return static_cast<bool>(in);
  }

  /// Streams |size| bytes from |start| to |sink| in bounded chunks.
  Status streamBytes(const std::string &name, uint64_t start, uint64_t size,
                     const ChunkSink &sink) {
    in.clear();
    in.seekg(static_cast<std::streamoff>(start));
    std::string chunk;
    for (uint64_t left = size; left > 0;) {
      size_t n =
          static_cast<size_t>(std::min<uint64_t>(left, kStreamChunkBytes));
      chunk.resize(n);
      in.read(chunk.data(), static_cast<std::streamsize>(n));
      if (!in)
        return dataLoss(archive + ": cannot read `" + name + "`");
      KB_RETURN_IF_ERROR(sink(chunk));
      left -= n;
    }
    return okStatus();
  }

  /// After the first zero block: the second, then only zero padding (tar
  /// pads to records).
  Status checkEnd() {
    if (!readBlock() || !allZero(b))
      return dataLoss(archive + ": truncated end-of-archive marker at byte " +
                      std::to_string(offset - kBlockSize) +
                      " (expected two zero blocks)");
    while (offset < fileSize) {
      size_t n = static_cast<size_t>(
          std::min<uint64_t>(kBlockSize, fileSize - offset));
      b.fill('\0');
      in.read(b.data(), static_cast<std::streamsize>(n));
      offset += n;
      if (!in || !allZero(b))
        return invalidArgument(archive +
                               ": data after the end-of-archive marker (two "
                               "archives concatenated, or a corrupted bundle)");
    }
    return okStatus();
  }
};

} // namespace

Status streamArchive(const fs::path &path,
                     const std::function<Status(const std::string &, uint64_t,
                                                const MemberBytes &)> &visit) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return notFound(path.string() + ": not a regular file");
  ArchiveCursor c;
  c.fileSize = fs::file_size(path, ec);
  c.in.open(path, std::ios::binary);
  if (ec || !c.in)
    return notFound("cannot read " + path.string() + ": " +
                    std::strerror(errno));
  c.archive = path.string();
  std::set<std::string> seen;
  for (;;) {
    std::string where =
        c.archive + ": member at byte " + std::to_string(c.offset);
    if (!c.readBlock())
      return dataLoss(c.archive + ": truncated at byte " +
                      std::to_string(c.offset) +
                      " (no end-of-archive marker); copy the bundle again");
    if (allZero(c.b))
      break;
    std::string name;
    uint64_t size = 0;
    KB_RETURN_IF_ERROR(checkHeader(c.b, where, name, size));
    uint64_t padded = (size + kBlockSize - 1) / kBlockSize * kBlockSize;
    if (padded > c.fileSize - c.offset)
      return dataLoss(c.archive + ": `" + name + "` is truncated: its " +
                      "header says " + std::to_string(size) + " bytes, " +
                      std::to_string(c.fileSize - c.offset) +
                      " are left in the file; copy the bundle again");
    if (!seen.insert(name).second)
      return invalidArgument(where + ": `" + name +
                             "` appears twice in the archive");
    const uint64_t start = c.offset;
    KB_RETURN_IF_ERROR(visit(name, size, [&](const ChunkSink &sink) {
      return c.streamBytes(name, start, size, sink);
    }));
    c.offset = start + padded;
    c.in.clear();
    c.in.seekg(static_cast<std::streamoff>(c.offset));
  }
  return c.checkEnd();
}

Status readArchive(
    const fs::path &path,
    const std::function<Status(const std::string &, std::string_view)> &visit) {
  return streamArchive(path,
                       [&](const std::string &name, uint64_t size,
                           const MemberBytes &read) -> Status {
                         std::string bytes;
                         bytes.reserve(static_cast<size_t>(size));
                         KB_RETURN_IF_ERROR(read([&](std::string_view chunk) {
                           bytes.append(chunk);
                           return okStatus();
                         }));
                         return visit(name, bytes);
                       });
}

} // namespace kb::ustar
