//===- common/file_util.cpp - Whole-file reads and atomic writes ----------===//

#include "common/file_util.h"

#include <cerrno>
#include <fcntl.h>
#include <fstream>
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

StatusOr<std::string> readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return notFound("cannot read `" + path.string() + "`: " + errnoText(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  if (in.bad())
    return dataLoss("read error in `" + path.string() + "`");
  return bytes;
}

Status writeFileAtomic(const fs::path &path, std::string_view bytes) {
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
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(tmp.c_str());
    return internalError("cannot rename `" + tmp + "` to `" + path.string() +
                         "`: " + errnoText(error));
  }
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
