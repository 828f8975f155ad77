//===- workbench/bench/bundle.cpp - What a GPU runner needs, in one file --===//
#include "workbench/bench/bundle.h"

#include "common/sha256.h"
#include "common/terminal_text.h"
#include "common/ustar.h"
#include "common/file_util.h"
#include "workbench/bench/bench_plan.h"
#include "workbench/build/declared_figures.h"

#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace kb::workbench {

namespace fs = std::filesystem;

namespace {

const std::string kVersionLine =
    "# kernel-bench bundle " + std::to_string(kBundleFormatVersion);

/// A size line: "# bytes N NAME". A comment to `sha256sum -c`, it lets
/// openBundle refuse a member of another size from its header alone.
const std::string kBytesPrefix = "# bytes ";

std::string renderManifest(const std::vector<BundleMember> &members) {
  std::string text = kVersionLine + "\n" +
                     "# verify by hand: tar -xf BUNDLE.tar && sha256sum -c " +
                     kBundleManifestName + "\n";
  for (const BundleMember &m : members)
    text += kBytesPrefix + std::to_string(m.bytes) + " " + m.name + "\n";
  for (const BundleMember &m : members)
    text += m.sha256 + "  " + m.name + "\n";
  return text;
}

bool isLowerHex64(const std::string &s) {
  if (s.size() != 64)
    return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}

/// The next line of |in| without its line ending: a manifest that passed
/// through a Windows checkout or editor ends its lines with CRLF.
bool nextLine(std::istringstream &in, std::string &line) {
  if (!std::getline(in, line))
    return false;
  if (!line.empty() && line.back() == '\r')
    line.pop_back();
  return true;
}

/// What the manifest says of a member: its sha256 and, in manifests since
/// size lines were added, its size.
struct ListedMember {
  std::string sha256;
  std::optional<uint64_t> bytes;
};
using Listing = std::map<std::string, ListedMember>;

/// "# bytes N NAME" into |sizes|; false when the line is not one.
bool parseBytesLine(const std::string &line,
                    std::map<std::string, uint64_t> &sizes) {
  if (line.rfind(kBytesPrefix, 0) != 0)
    return false;
  size_t space = line.find(' ', kBytesPrefix.size());
  if (space == std::string::npos)
    return false;
  std::string digits =
      line.substr(kBytesPrefix.size(), space - kBytesPrefix.size());
  if (digits.empty() || digits.size() > 19 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return false;
  sizes[line.substr(space + 1)] = std::stoull(digits);
  return true;
}

/// Every size line names a listed member; when there are any, every listed
/// member has one (a manifest from before size lines has none).
Status attachSizes(std::map<std::string, uint64_t> sizes, Listing &listed,
                   const std::string &where) {
  if (sizes.empty())
    return okStatus();
  for (auto &[name, member] : listed) {
    auto it = sizes.find(name);
    if (it == sizes.end())
      return invalidArgument(where + ": `" + terminalLine(name) +
                             "` has no size line (`# bytes N NAME`) while "
                             "other members do; make the bundle again");
    member.bytes = it->second;
    sizes.erase(it);
  }
  if (!sizes.empty())
    return invalidArgument(where + ": a size line names `" +
                           terminalLine(sizes.begin()->first) +
                           "`, which has no sha256 line");
  return okStatus();
}

/// Parses the manifest into name -> sha256 and size. Lines are quoted in
/// messages with their control characters shown (terminalLine).
StatusOr<Listing> parseManifest(std::string_view text,
                                const std::string &where) {
  std::istringstream in{std::string(text)};
  std::string line;
  if (!nextLine(in, line) || line.rfind("# kernel-bench bundle ", 0) != 0)
    return invalidArgument(where + ": line 1: expected `" + kVersionLine +
                           "`, found `" + terminalLine(line) + "`");
  if (line != kVersionLine)
    return failedPrecondition(where + ": line 1: `" + terminalLine(line) +
                              "` is a bundle format this kernel-bench " +
                              "does not read (it reads format " +
                              std::to_string(kBundleFormatVersion) +
                              "); bench it with the kernel-bench that made it");
  Listing listed;
  std::map<std::string, uint64_t> sizes;
  for (int number = 2; nextLine(in, line); ++number) {
    if (line.empty() || parseBytesLine(line, sizes) || line[0] == '#')
      continue;
    std::string at = where + ": line " + std::to_string(number) + ": ";
    std::string sha = line.substr(0, 64);
    if (line.size() < 67 || !isLowerHex64(sha) || line.compare(64, 2, "  "))
      return invalidArgument(at +
                             "expected `<64 hex digits>  <member>`, "
                             "found `" +
                             terminalLine(line) + "`");
    std::string name = line.substr(66);
    if (std::string why = ustar::checkMemberName(name); !why.empty())
      return invalidArgument(at + "member name `" + terminalLine(name) + "` " +
                             why);
    if (!listed.emplace(name, ListedMember{sha, std::nullopt}).second)
      return invalidArgument(at + "`" + name + "` is listed twice");
  }
  KB_RETURN_IF_ERROR(attachSizes(std::move(sizes), listed, where));
  return listed;
}

/// The .npy files build.json records for kernels' fixed inputs and
/// expected outputs, and the shared objects of their host references
/// (declared_figures.h): they travel like the modules, listed and checked
/// the same way (a host reference is native code `bench` will load).
StatusOr<std::vector<std::string>> fixedDataFiles(const fs::path &buildDir) {
  KB_ASSIGN_OR_RETURN(DeclaredByObject byObject,
                      readDeclaredFigures(buildDir / "build.json"));
  std::set<std::string> files;
  for (const auto &[sha, jobs] : byObject)
    for (const JobDeclared &job : jobs)
      for (const auto *arrays :
           {&job.declared.fixedInputs, &job.declared.expectedOutputs})
        for (const bench::FixedArray &a : *arrays)
          files.insert(a.stored);
  for (const auto &[sha, jobs] : byObject)
    for (const JobDeclared &job : jobs)
      if (job.declared.hostReference)
        files.insert(job.declared.hostReference->stored);
  return std::vector<std::string>(files.begin(), files.end());
}

/// The manifest is read whole: a text of one line per member, capped far
/// above any real bundle's.
constexpr uint64_t kMaxManifestBytes = uint64_t(16) << 20;

/// Streams member |name| from |read| into a new file under |root| (never
/// held in memory), hashing as it goes; the sha256, or an error naming the
/// member. O_EXCL semantics: names are unique and checked, the directory
/// is fresh and ours, so an existing entry means something is wrong.
StatusOr<std::string> extractMember(const fs::path &root,
                                    const std::string &name,
                                    const ustar::MemberBytes &read) {
  fs::path file = root / name;
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec || fs::exists(fs::symlink_status(file, ec)))
    return internalError("cannot extract `" + name + "` into " + root.string());
  std::ofstream out(file, std::ios::binary);
  Sha256 hash;
  KB_RETURN_IF_ERROR(read([&](std::string_view chunk) -> Status {
    hash.update(chunk);
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    if (!out)
      return internalError("cannot extract `" + name + "` into " +
                           root.string() + " (disk full?)");
    return okStatus();
  }));
  out.flush();
  if (!out)
    return internalError("cannot extract `" + name + "` into " + root.string() +
                         " (disk full?)");
  return hash.hexDigest();
}

/// The first member: the manifest, read whole under its cap.
StatusOr<Listing> readManifestMember(const std::string &where,
                                     const std::string &name, uint64_t size,
                                     const ustar::MemberBytes &read) {
  if (name != kBundleManifestName)
    return invalidArgument(
        where + ": not a kernel-bench bundle: its first member is `" + name +
        "`, not " + kBundleManifestName +
        "; make one with `kernel-bench bundle BUILD -o OUT.tar`");
  if (size > kMaxManifestBytes)
    return invalidArgument(where + ": the manifest is " + std::to_string(size) +
                           " bytes, more than the " +
                           std::to_string(kMaxManifestBytes) +
                           " a bundle's manifest can be; not a bundle made "
                           "by `kernel-bench bundle`");
  std::string text;
  KB_RETURN_IF_ERROR(read([&](std::string_view chunk) {
    text.append(chunk);
    return okStatus();
  }));
  return parseManifest(text, where + ":" + name);
}

/// Checks a member's name and size against the manifest before a byte of
/// it is read, then streams it to disk and checks its sha256.
StatusOr<BundleMember> checkAndExtract(const fs::path &root,
                                       const std::string &where,
                                       const Listing &listed,
                                       const std::string &name, uint64_t size,
                                       const ustar::MemberBytes &read) {
  auto it = listed.find(name);
  if (it == listed.end())
    return invalidArgument(where + ": member `" + name +
                           "` is not in the manifest; the bundle was "
                           "altered after `kernel-bench bundle`");
  if (it->second.bytes && *it->second.bytes != size)
    return dataLoss(where + ": member `" + name + "` is " +
                    std::to_string(size) + " bytes, the manifest lists " +
                    std::to_string(*it->second.bytes) +
                    "; the bundle is corrupted: copy it again");
  KB_ASSIGN_OR_RETURN(std::string actual, extractMember(root, name, read));
  if (actual != it->second.sha256)
    return dataLoss(where + ": member `" + name +
                    "`: sha256 mismatch (manifest " + it->second.sha256 +
                    ", content " + actual +
                    "); the bundle is corrupted: copy it again");
  return BundleMember{name, actual, size};
}

} // namespace

StatusOr<BundleSummary> createBundle(const fs::path &buildDir,
                                     const fs::path &archive) {
  std::error_code ec;
  if (!fs::is_regular_file(buildDir / "build.json", ec))
    return failedPrecondition(
        buildDir.string() + " has no build.json: not the output of " +
        "`kernel-bench build`; build the project first (kernel-bench build " +
        "PROJECT -o " + buildDir.string() + ")");
  std::vector<std::string> names = benchModuleFiles(buildDir.string());
  if (names.empty())
    return failedPrecondition(
        buildDir.string() + " holds no benchmark module (bench/*.kbm, " +
        "standalone/*/bench/*.kbm) and no program.kbm: nothing to bench; " +
        "build a project with a program or [bench] kernels");
  names.insert(names.begin(), "build.json");
  KB_ASSIGN_OR_RETURN(std::vector<std::string> data, fixedDataFiles(buildDir));
  names.insert(names.end(), data.begin(), data.end());
  std::vector<ustar::WriteMember> members(1);
  BundleSummary summary;
  for (const std::string &name : names) {
    KB_ASSIGN_OR_RETURN(std::string bytes, kb::readFile(buildDir / name));
    summary.members.push_back({name, sha256Hex(bytes), bytes.size()});
    members.push_back({name, std::move(bytes)});
  }
  members[0] = {kBundleManifestName, renderManifest(summary.members)};
  KB_RETURN_IF_ERROR(ustar::writeArchive(archive, members));
  summary.archiveBytes = fs::file_size(archive, ec);
  return summary;
}

std::string OpenedBundle::displayPath(const std::string &path) const {
  std::string prefix = root().string() + "/";
  if (path.compare(0, prefix.size(), prefix) != 0)
    return path;
  return archive_.string() + ":" + path.substr(prefix.size());
}

StatusOr<OpenedBundle> openBundle(const fs::path &archive) {
  // What a bench killed with SIGKILL left behind (its lock is free).
  toolchains::ScratchDir::removeAbandoned();
  KB_ASSIGN_OR_RETURN(toolchains::ScratchDir scratch,
                      toolchains::ScratchDir::create());
  OpenedBundle bundle(std::move(scratch), archive);
  const std::string where = archive.string();
  std::optional<Listing> listed;
  KB_RETURN_IF_ERROR(ustar::streamArchive(
      archive,
      [&](const std::string &name, uint64_t size,
          const ustar::MemberBytes &read) -> Status {
        if (!listed) {
          KB_ASSIGN_OR_RETURN(listed,
                              readManifestMember(where, name, size, read));
          return okStatus();
        }
        KB_ASSIGN_OR_RETURN(
            BundleMember member,
            checkAndExtract(bundle.root(), where, *listed, name, size, read));
        bundle.members_.push_back(std::move(member));
        return okStatus();
      }));
  if (!listed)
    return invalidArgument(where + ": not a kernel-bench bundle: the archive "
                                   "is empty");
  std::set<std::string> present;
  for (const BundleMember &m : bundle.members_)
    present.insert(m.name);
  for (const auto &[name, member] : *listed)
    if (!present.count(name))
      return dataLoss(where + ": member `" + name +
                      "` is in the manifest but not in the bundle; copy the "
                      "bundle again");
  if (!present.count("build.json"))
    return invalidArgument(where + ": not a complete bundle: no build.json");
  return bundle;
}

} // namespace kb::workbench
