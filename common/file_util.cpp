//===- common/file_util.cpp - Whole-file reads and atomic writes ----------===//

#include "common/file_util.h"

#include <cerrno>
#include <cstdio>
#include <iterator>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace kb {
namespace {

namespace fs = std::filesystem;

std::string errnoText(int error) {
  return std::error_code(error, std::generic_category()).message();
}

Status fsyncPath(const fs::path &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return internalError("cannot open `" + path.string() +
                         "` to sync it: " + errnoText(errno));
  int rc = ::fsync(fd);
  int error = errno;
  ::close(fd);
  if (rc != 0)
    return internalError("fsync `" + path.string() + "`: " + errnoText(error));
  return okStatus();
}

Status makeParent(const fs::path &path) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec)
    return internalError("cannot create directory `" +
                         path.parent_path().string() + "`: " + ec.message());
  return okStatus();
}

} // namespace

namespace {

/// "1 GiB", "16 MiB", "512 bytes": caps and sizes in messages.
std::string byteText(uint64_t bytes) {
  static const char *const kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = double(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  char text[48];
  std::snprintf(text, sizeof(text), unit == 0 ? "%.0f %s" : "%.3g %s", value,
                kUnits[unit]);
  return text;
}

std::string quoted(const fs::path &path) { return "`" + path.string() + "`"; }

/// The descriptor a `/dev/fd/N`, `/proc/self/fd/N` or `/dev/stdin` path
/// names, or -1. Such a path is a pipe this process already holds open (a
/// shell's `<(...)`): reading it cannot wait for a writer that never comes.
int heldDescriptor(const fs::path &path) {
  std::string text = path.lexically_normal().string();
  if (text == "/dev/stdin")
    return 0;
  for (const char *prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    std::string_view p(prefix);
    if (text.compare(0, p.size(), p) != 0 || text.size() == p.size() ||
        text.size() - p.size() > 9)
      continue;
    int fd = 0;
    for (size_t i = p.size(); i < text.size(); ++i) {
      if (text[i] < '0' || text[i] > '9')
        return -1;
      fd = fd * 10 + (text[i] - '0');
    }
    return fd;
  }
  return -1;
}

bool isStream(const struct stat &st) {
  return S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
}

/// Why |path| (described by |st|) is not something a command may read as a
/// |limit.what|, or OK. Never opens it.
Status checkKind(const fs::path &path, const struct stat &st,
                 const InputLimit &limit) {
  std::string what = limit.what;
  if (S_ISDIR(st.st_mode))
    return invalidArgument(quoted(path) + " is a directory; expected a " +
                           what + " (a regular file)");
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
    return invalidArgument(
        quoted(path) + " is a named " +
        (S_ISFIFO(st.st_mode) ? "pipe (FIFO)" : "socket") +
        ", not a regular file: opening it would wait for a writer; expected "
        "a " +
        what +
        " in a regular file (a pipe is read only when already "
        "open: `-`, `<(command)`, `/dev/fd/N`)");
  if (!S_ISREG(st.st_mode))
    return invalidArgument(quoted(path) + " is a " +
                           (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)
                                ? "device file"
                                : "special file") +
                           ", not a regular file; expected a " + what);
  if (uint64_t(st.st_size) > limit.maxBytes)
    return resourceExhausted(
        quoted(path) + " is " + byteText(uint64_t(st.st_size)) +
        ", more than the " + byteText(limit.maxBytes) + " a " + what +
        " may have (docs/cli.md, \"Input files\"); is it the right file?");
  return okStatus();
}

Status statInput(const fs::path &path, struct stat &st) {
  if (::stat(path.c_str(), &st) == 0)
    return okStatus();
  return notFound("cannot read " + quoted(path) + ": " + errnoText(errno));
}

} // namespace

Status checkInputFile(const fs::path &path, const InputLimit &limit) {
  if (path == "-")
    return okStatus();
  int held = heldDescriptor(path);
  struct stat st;
  if (held >= 0 && ::fstat(held, &st) == 0 && isStream(st))
    return okStatus();
  KB_RETURN_IF_ERROR(statInput(path, st));
  return checkKind(path, st, limit);
}

StatusOr<InputFile> InputFile::open(const fs::path &path,
                                    const InputLimit &limit) {
  if (path == "-")
    return InputFile(0, "stdin", limit, /*ownsFd=*/false);
  struct stat st;
  int held = heldDescriptor(path);
  if (held >= 0 && ::fstat(held, &st) == 0 && isStream(st)) {
    // Reopening a pipe through /proc opens it as a FIFO; a duplicate reads
    // the very pipe the shell handed over.
    int fd = ::fcntl(held, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
      return notFound("cannot read " + quoted(path) + ": " + errnoText(errno));
    return InputFile(fd, path.string(), limit, true);
  }
  KB_RETURN_IF_ERROR(statInput(path, st));
  KB_RETURN_IF_ERROR(checkKind(path, st, limit));
  // O_NONBLOCK: should the path have become a FIFO since the stat, the open
  // returns instead of waiting for a writer; fstat below then refuses it.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return notFound("cannot read " + quoted(path) + ": " + errnoText(errno));
  InputFile file(fd, path.string(), limit, true);
  if (::fstat(fd, &st) != 0)
    return notFound("cannot read " + quoted(path) + ": " + errnoText(errno));
  KB_RETURN_IF_ERROR(checkKind(path, st, limit));
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return std::move(file);
}

InputFile::InputFile(InputFile &&other) noexcept
    : fd_(other.fd_), display_(std::move(other.display_)), limit_(other.limit_),
      ownsFd_(other.ownsFd_), consumed_(other.consumed_) {
  other.fd_ = -1;
}

InputFile &InputFile::operator=(InputFile &&other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    display_ = std::move(other.display_);
    limit_ = other.limit_;
    ownsFd_ = other.ownsFd_;
    consumed_ = other.consumed_;
    other.fd_ = -1;
  }
  return *this;
}

InputFile::~InputFile() { close(); }

void InputFile::close() {
  if (fd_ >= 0 && ownsFd_)
    ::close(fd_);
  fd_ = -1;
}

StatusOr<size_t> InputFile::read(char *buffer, size_t size) {
  ssize_t n;
  do
    n = ::read(fd_, buffer, size);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return dataLoss("read error in `" + display_ + "`: " + errnoText(errno));
  consumed_ += uint64_t(n);
  if (consumed_ > limit_.maxBytes)
    return resourceExhausted(
        "`" + display_ + "` holds more than the " + byteText(limit_.maxBytes) +
        " a " + limit_.what +
        " may have (docs/cli.md, \"Input files\"); is it the right input?");
  return size_t(n);
}

StatusOr<std::string> InputFile::readAll() {
  std::string bytes;
  struct stat st;
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) &&
      uint64_t(st.st_size) <= limit_.maxBytes)
    bytes.reserve(size_t(st.st_size));
  char chunk[1 << 16];
  for (;;) {
    KB_ASSIGN_OR_RETURN(size_t n, read(chunk, sizeof(chunk)));
    if (n == 0)
      return bytes;
    bytes.append(chunk, n);
  }
}

StatusOr<std::string> readFile(const fs::path &path, const InputLimit &limit) {
  KB_ASSIGN_OR_RETURN(InputFile file, InputFile::open(path, limit));
  return file.readAll();
}

Status writeFileAtomic(const fs::path &path, std::string_view bytes,
                       bool replace) {
  KB_RETURN_IF_ERROR(makeParent(path));
  std::string pattern = path.string() + ".tmp-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0)
    return internalError("cannot create a temporary file next to `" +
                         path.string() + "`: " + errnoText(errno));
  std::string tmp(name.data());
  auto fail = [&](const std::string &what) {
    int error = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return internalError(what + " `" + tmp + "`: " + errnoText(error));
  };
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return fail("cannot write");
    }
    written += size_t(n);
  }
  // mkostemp creates 0600; published files are ordinary build outputs.
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0)
    return fail("cannot fsync");
  ::close(fd);
  int renamed = replace ? ::rename(tmp.c_str(), path.c_str())
                        : ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD,
                                      path.c_str(), RENAME_NOREPLACE);
  if (renamed != 0) {
    int error = errno;
    ::unlink(tmp.c_str());
    if (error == EEXIST)
      return Status(StatusCode::AlreadyExists, path.string() + " exists");
    return internalError("cannot rename `" + tmp + "` to `" + path.string() +
                         "`: " + errnoText(error));
  }
  return okStatus();
}

Status appendFile(const fs::path &path, std::string_view bytes) {
  int fd = ::open(path.c_str(),
                  O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0)
    return internalError("cannot open `" + path.string() +
                         "` to append to it: " + errnoText(errno));
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int error = n < 0 ? errno : EIO;
      ::close(fd);
      return internalError("cannot append to `" + path.string() +
                           "`: " + errnoText(error) + " (" +
                           std::to_string(written) + " of " +
                           std::to_string(bytes.size()) + " bytes written)");
    }
    written += size_t(n);
  }
  // NFS and FUSE report a full disk or a quota on close.
  if (::close(fd) != 0)
    return internalError("cannot append to `" + path.string() +
                         "`: " + errnoText(errno));
  return okStatus();
}

Status checkWritableDirectory(const fs::path &dir) {
  std::error_code ec;
  fs::path existing = fs::absolute(dir.empty() ? fs::path(".") : dir, ec);
  while (!fs::exists(existing, ec) && existing.has_parent_path() &&
         existing.parent_path() != existing)
    existing = existing.parent_path();
  if (fs::exists(existing, ec) && !fs::is_directory(existing, ec))
    return failedPrecondition("cannot create `" + dir.string() + "`: `" +
                              existing.string() +
                              "` exists and is not a directory");
  std::string pattern = (existing / ".kb-write-probe-XXXXXX").string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0)
    return failedPrecondition(
        "cannot write into `" + dir.string() + "`" +
        (fs::exists(dir, ec) ? ""
                             : " (its parent `" + existing.string() + "`)") +
        ": " + errnoText(errno) + "; choose another output directory");
  ::close(fd);
  ::unlink(name.data());
  return okStatus();
}

Status publishFile(const fs::path &from, const fs::path &to) {
  KB_RETURN_IF_ERROR(makeParent(to));
  KB_RETURN_IF_ERROR(fsyncPath(from));
  if (::rename(from.c_str(), to.c_str()) != 0)
    return internalError("cannot rename `" + from.string() + "` to `" +
                         to.string() + "`: " + errnoText(errno));
  return okStatus();
}

StatusOr<TempDir> TempDir::create(const fs::path &parent,
                                  std::string_view prefix) {
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec)
    return internalError("cannot create directory `" + parent.string() +
                         "`: " + ec.message());
  std::string pattern = (parent / (std::string(prefix) + "XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (!::mkdtemp(name.data()))
    return internalError("cannot create a temporary directory `" + pattern +
                         "`: " + errnoText(errno));
  return TempDir(fs::path(name.data()));
}

TempDir &TempDir::operator=(TempDir &&other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

TempDir::~TempDir() { remove(); }

void TempDir::remove() {
  if (!path_.empty()) {
    std::error_code ec;
    fs::remove_all(path_, ec);
    path_.clear();
  }
}

} // namespace kb
