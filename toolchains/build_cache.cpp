//===- toolchains/build_cache.cpp - Content-addressed kernel build cache -===//

#include "toolchains/build_cache.h"

#include "common/file_util.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

namespace kb::toolchains {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Bump when the key record or the file format changes: old entries then
// simply stop matching.
constexpr const char kFormatVersion[] = "kernel-bench-cache-v2";
constexpr const char kMagic[] = "KBCACHE2";

// Metadata is CBOR, not JSON text: paths and tool output are bytes, and
// nlohmann's text writer throws on any that are not UTF-8. Its CBOR writer
// and reader carry strings byte for byte.
std::string toCbor(const json &value) {
  std::vector<uint8_t> bytes = json::to_cbor(value);
  return std::string(bytes.begin(), bytes.end());
}

json fromCbor(const std::string &bytes) { return json::from_cbor(bytes); }

//===----------------------------------------------------------------------===//
// Container: magic, then (name, bytes) sections, then sha256 of all before.
//===----------------------------------------------------------------------===//

void putU64(std::string &out, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out.push_back(char(value >> (8 * i)));
}

std::string
encodeContainer(const std::map<std::string, std::string> &sections) {
  std::string out(kMagic);
  putU64(out, sections.size());
  for (const auto &[name, bytes] : sections) {
    putU64(out, name.size());
    out += name;
    putU64(out, bytes.size());
    out += bytes;
  }
  Sha256 hash;
  hash.update(out);
  Sha256::Digest digest = hash.digest();
  out.append(reinterpret_cast<const char *>(digest.data()), digest.size());
  return out;
}

/// nullopt when truncated, corrupted or not ours.
std::optional<std::map<std::string, std::string>>
decodeContainer(std::string_view bytes) {
  size_t magicSize = std::strlen(kMagic);
  if (bytes.size() < magicSize + 8 + 32 || bytes.substr(0, magicSize) != kMagic)
    return std::nullopt;
  std::string_view body = bytes.substr(0, bytes.size() - 32);
  Sha256 hash;
  hash.update(body);
  Sha256::Digest digest = hash.digest();
  if (std::memcmp(digest.data(), bytes.data() + body.size(), 32) != 0)
    return std::nullopt;
  size_t pos = magicSize;
  auto getU64 = [&](uint64_t &value) {
    if (body.size() - pos < 8)
      return false;
    value = 0;
    for (int i = 0; i < 8; ++i)
      value |= uint64_t(uint8_t(body[pos + i])) << (8 * i);
    pos += 8;
    return true;
  };
  auto getBytes = [&](std::string &out) {
    uint64_t size;
    if (!getU64(size) || body.size() - pos < size)
      return false;
    out.assign(body.substr(pos, size));
    pos += size;
    return true;
  };
  uint64_t count;
  if (!getU64(count))
    return std::nullopt;
  std::map<std::string, std::string> sections;
  for (uint64_t i = 0; i < count; ++i) {
    std::string name, data;
    if (!getBytes(name) || !getBytes(data))
      return std::nullopt;
    sections[name] = std::move(data);
  }
  if (pos != body.size())
    return std::nullopt;
  return sections;
}

//===----------------------------------------------------------------------===//
// Entry metadata as JSON.
//===----------------------------------------------------------------------===//

json diagnosticToJson(const Diagnostic &d) {
  return {{"tool", d.tool},
          {"file", d.file},
          {"line", d.line},
          {"column", d.column},
          {"severity", int(d.severity)},
          {"message", d.message},
          {"code", d.code}};
}

Diagnostic diagnosticFromJson(const json &j) {
  Diagnostic d;
  d.tool = j.at("tool").get<std::string>();
  d.file = j.at("file").get<std::string>();
  d.line = j.at("line").get<int>();
  d.column = j.at("column").get<int>();
  int severity = j.at("severity").get<int>();
  if (severity < int(Severity::Note) || severity > int(Severity::Fatal))
    throw std::out_of_range("severity");
  d.severity = Severity(severity);
  d.message = j.at("message").get<std::string>();
  d.code = j.at("code").get<std::string>();
  return d;
}

json metaToJson(const CacheEntry &entry) {
  json meta;
  meta["diagnostics"] = json::array();
  for (const Diagnostic &d : entry.diagnostics)
    meta["diagnostics"].push_back(diagnosticToJson(d));
  if (entry.resources) {
    const ResourceUsage &r = *entry.resources;
    meta["resources"] = {{"registers", r.registers},
                         {"stackFrameBytes", r.stackFrameBytes},
                         {"spillStoreBytes", r.spillStoreBytes},
                         {"spillLoadBytes", r.spillLoadBytes},
                         {"sharedMemoryBytes", r.sharedMemoryBytes},
                         {"barriers", r.barriers},
                         {"constantMemoryBytes", r.constantMemoryBytes}};
  }
  meta["commands"] = json::array();
  for (const ToolInvocation &c : entry.commands)
    meta["commands"].push_back({{"tool", c.tool},
                                {"argv", c.argv},
                                {"seconds", c.seconds},
                                {"exitCode", c.exitCode}});
  meta["dependencies"] = entry.dependencies;
  json hashes = json::object();
  for (const auto &[kind, bytes] : entry.outputs)
    hashes[kind] = sha256Hex(bytes);
  meta["outputHashes"] = hashes;
  return meta;
}

CacheEntry entryFromJson(const json &meta) {
  CacheEntry entry;
  for (const json &d : meta.at("diagnostics"))
    entry.diagnostics.push_back(diagnosticFromJson(d));
  if (meta.contains("resources")) {
    const json &r = meta.at("resources");
    ResourceUsage usage;
    usage.registers = r.at("registers").get<uint32_t>();
    usage.stackFrameBytes = r.at("stackFrameBytes").get<uint32_t>();
    usage.spillStoreBytes = r.at("spillStoreBytes").get<uint32_t>();
    usage.spillLoadBytes = r.at("spillLoadBytes").get<uint32_t>();
    usage.sharedMemoryBytes = r.at("sharedMemoryBytes").get<uint32_t>();
    usage.barriers = r.at("barriers").get<uint32_t>();
    usage.constantMemoryBytes = r.at("constantMemoryBytes").get<uint32_t>();
    entry.resources = usage;
  }
  for (const json &c : meta.at("commands")) {
    ToolInvocation invocation;
    invocation.tool = c.at("tool").get<std::string>();
    invocation.argv = c.at("argv").get<std::vector<std::string>>();
    invocation.seconds = c.at("seconds").get<double>();
    invocation.exitCode = c.at("exitCode").get<int>();
    entry.commands.push_back(std::move(invocation));
  }
  entry.dependencies = meta.at("dependencies").get<std::vector<std::string>>();
  if (meta.contains("outputHashes"))
    entry.outputHashes =
        meta.at("outputHashes").get<std::map<std::string, std::string>>();
  return entry;
}

using Candidate = BuildCache::Candidate;

std::string resultKeyFor(
    const std::string &primaryKey,
    const std::vector<std::pair<std::string, std::string>> &dependencies) {
  CacheKeyBuilder key;
  key.add(kFormatVersion).add("result").add(primaryKey);
  for (const auto &[path, hash] : dependencies)
    key.add(path).add(hash);
  return key.finish();
}

/// nullopt when the bytes are truncated, corrupted or not a manifest.
std::optional<std::vector<Candidate>> parseManifest(std::string_view bytes) {
  auto sections = decodeContainer(bytes);
  if (!sections || !sections->count("manifest"))
    return std::nullopt;
  std::vector<Candidate> candidates;
  try {
    json manifest = fromCbor(sections->at("manifest"));
    for (const json &c : manifest.at("candidates")) {
      Candidate candidate;
      candidate.resultKey = c.at("result").get<std::string>();
      if (c.contains("blob"))
        candidate.blob = c.at("blob").get<std::string>();
      if (c.contains("relative"))
        candidate.relative = c.at("relative").get<std::vector<std::string>>();
      for (const json &d : c.at("dependencies"))
        candidate.dependencies.emplace_back(d.at(0).get<std::string>(),
                                            d.at(1).get<std::string>());
      candidates.push_back(std::move(candidate));
    }
  } catch (const json::exception &) {
    return std::nullopt;
  }
  return candidates;
}

std::string encodeManifest(const std::vector<Candidate> &candidates) {
  json manifest;
  manifest["candidates"] = json::array();
  for (const Candidate &c : candidates) {
    json deps = json::array();
    for (const auto &[path, hash] : c.dependencies)
      deps.push_back({path, hash});
    json entry = {{"result", c.resultKey}, {"dependencies", deps}};
    if (!c.blob.empty())
      entry["blob"] = c.blob;
    if (!c.relative.empty())
      entry["relative"] = c.relative;
    manifest["candidates"].push_back(std::move(entry));
  }
  return encodeContainer({{"manifest", toCbor(manifest)}});
}

/// A missing or corrupted manifest is an empty one.
std::vector<Candidate> readManifest(const fs::path &path) {
  auto bytes = readFile(path);
  if (!bytes.ok())
    return {};
  return parseManifest(*bytes).value_or(std::vector<Candidate>());
}

/// Puts |candidate| first, without an older copy of its result.
void pushFront(std::vector<Candidate> &candidates, Candidate candidate) {
  candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                  [&](const Candidate &c) {
                                    return c.resultKey == candidate.resultKey;
                                  }),
                   candidates.end());
  candidates.insert(candidates.begin(), std::move(candidate));
  if (candidates.size() > BuildCache::kMaxCandidates)
    candidates.resize(BuildCache::kMaxCandidates);
}

/// The entry a result container holds; nullopt when it is not one.
std::optional<CacheEntry> decodeResult(std::string_view bytes) {
  auto sections = decodeContainer(bytes);
  if (!sections || !sections->count("meta"))
    return std::nullopt;
  try {
    CacheEntry entry = entryFromJson(fromCbor(sections->at("meta")));
    for (auto &[name, data] : *sections)
      if (name.rfind("out:", 0) == 0)
        entry.outputs[name.substr(4)] = std::move(data);
    // The container's checksum covers the recorded hashes; entries
    // written before they were recorded get them computed.
    for (const auto &[kind, bytes] : entry.outputs)
      if (!entry.outputHashes.count(kind) ||
          entry.outputHashes[kind].size() != 64)
        entry.outputHashes[kind] = sha256Hex(bytes);
    for (auto it = entry.outputHashes.begin(); it != entry.outputHashes.end();)
      it = entry.outputs.count(it->first) ? std::next(it)
                                          : entry.outputHashes.erase(it);
    return entry;
  } catch (const std::exception &) {
    return std::nullopt; // Corrupted metadata.
  }
}

bool isHexKey(const std::string &key) {
  return key.size() == 64 &&
         key.find_first_not_of("0123456789abcdef") == std::string::npos;
}

} // namespace

CacheKeyBuilder &CacheKeyBuilder::add(std::string_view field) {
  uint8_t length[8];
  for (int i = 0; i < 8; ++i)
    length[i] = uint8_t(uint64_t(field.size()) >> (8 * i));
  hash_.update(length, sizeof(length));
  hash_.update(field);
  return *this;
}

StatusOr<fs::path> BuildCache::defaultDirectory() {
  auto env = [](const char *name) -> std::string {
    const char *value = std::getenv(name);
    return value ? value : "";
  };
  if (std::string dir = env("KB_CACHE_DIR"); !dir.empty())
    return fs::path(dir);
  if (std::string dir = env("XDG_CACHE_HOME"); !dir.empty())
    return fs::path(dir) / "kernel-bench";
  if (std::string home = env("HOME"); !home.empty())
    return fs::path(home) / ".cache" / "kernel-bench";
  return failedPrecondition(
      "no cache directory: none of KB_CACHE_DIR, XDG_CACHE_HOME and HOME is "
      "set. Set KB_CACHE_DIR (or [build] cache_dir in workbench.toml), or "
      "build with --no-cache.");
}

StatusOr<std::unique_ptr<BuildCache>>
BuildCache::open(const fs::path &directory) {
  fs::path dir = fs::absolute(directory).lexically_normal();
  std::error_code ec;
  fs::create_directories(dir / "v1", ec);
  if (ec)
    return failedPrecondition("cannot create the build cache directory `" +
                              (dir / "v1").string() + "`: " + ec.message() +
                              ". Choose another with KB_CACHE_DIR, or build "
                              "with --no-cache.");
  fs::path tag = dir / "CACHEDIR.TAG";
  if (!fs::exists(tag, ec)) {
    // Tells backup tools (tar --exclude-caches, borg, restic) to skip it.
    KB_RETURN_IF_ERROR(writeFileAtomic(
        tag,
        "Signature: 8a477f597d28d172789f06886806bc55\n"
        "# This file is a cache directory tag created by kernel-bench.\n"));
  }
  return std::unique_ptr<BuildCache>(new BuildCache(dir));
}

fs::path BuildCache::manifestPath(const std::string &key) const {
  return directory_ / "v1" / "manifests" / key.substr(0, 2) / key;
}

fs::path BuildCache::resultPath(const std::string &key) const {
  return directory_ / "v1" / "results" / key.substr(0, 2) / key;
}

bool BuildCache::matches(const std::string &primaryKey,
                         const Candidate &candidate) {
  for (const auto &[path, hash] : candidate.dependencies) {
    std::optional<std::string> now = hashFile(path);
    if (!now || *now != hash)
      return false;
  }
  // The result key is recomputed, not trusted from the manifest.
  return resultKeyFor(primaryKey, candidate.dependencies) ==
         candidate.resultKey;
}

std::optional<BuildCache::Candidate>
BuildCache::relocate(const std::string &primaryKey, const Candidate &candidate,
                     const fs::path &sourceDir) {
  // The manifest must be consistent as recorded.
  if (resultKeyFor(primaryKey, candidate.dependencies) != candidate.resultKey)
    return std::nullopt;
  bool canRelocate = !sourceDir.empty() &&
                     candidate.relative.size() == candidate.dependencies.size();
  Candidate here;
  for (size_t i = 0; i < candidate.dependencies.size(); ++i) {
    const auto &[path, hash] = candidate.dependencies[i];
    std::string local = path;
    std::error_code ec;
    // Only a path that does not exist here is looked for relative to the
    // source: one that exists is what this machine's compile would read.
    if (canRelocate && !fs::exists(path, ec))
      local = (sourceDir / candidate.relative[i]).lexically_normal().string();
    std::optional<std::string> now = hashFile(local);
    if (!now || *now != hash)
      return std::nullopt;
    here.dependencies.emplace_back(local, hash);
  }
  here.resultKey = resultKeyFor(primaryKey, here.dependencies);
  return here;
}

std::optional<CacheEntry> BuildCache::lookup(const std::string &primaryKey,
                                             const fs::path &sourceDir) {
  if (!isHexKey(primaryKey)) {
    ++misses_;
    return std::nullopt;
  }
  for (const Candidate &candidate : readManifest(manifestPath(primaryKey))) {
    if (!matches(primaryKey, candidate))
      continue;
    auto bytes = readFile(resultPath(candidate.resultKey));
    if (!bytes.ok())
      continue;
    if (std::optional<CacheEntry> entry = decodeResult(*bytes)) {
      ++hits_;
      return entry;
    }
  }
  if (remote_)
    if (std::optional<CacheEntry> entry = lookupRemote(primaryKey, sourceDir)) {
      ++hits_;
      ++remoteHits_;
      entry->fromRemote = true;
      return entry;
    }
  ++misses_;
  return std::nullopt;
}

std::optional<CacheEntry>
BuildCache::lookupRemote(const std::string &primaryKey,
                         const fs::path &sourceDir) {
  std::vector<Candidate> candidates;
  if (std::optional<std::string> bytes =
          remote_->get(RemoteArea::ActionCache, primaryKey)) {
    if (auto parsed = parseManifest(*bytes)) {
      candidates = std::move(*parsed);
      // Each candidate costs hashing its files: a server's manifest gets
      // no more than ours.
      if (candidates.size() > kMaxCandidates)
        candidates.resize(kMaxCandidates);
    } else
      remote_->reportCorrupt(RemoteArea::ActionCache, primaryKey,
                             "not a manifest, or its checksum does not match");
  }
  {
    std::lock_guard<std::mutex> lock(remoteSeenMutex_);
    remoteSeen_[primaryKey] = candidates;
  }
  for (const Candidate &candidate : candidates) {
    std::optional<Candidate> here;
    if (!candidate.blob.empty())
      here = relocate(primaryKey, candidate, sourceDir);
    if (!here)
      continue;
    // The tier checked that the bytes' sha256 is their name.
    std::optional<std::string> blob =
        remote_->get(RemoteArea::ContentStore, candidate.blob);
    if (!blob)
      continue;
    std::optional<CacheEntry> entry = decodeResult(*blob);
    if (!entry) {
      remote_->reportCorrupt(RemoteArea::ContentStore, candidate.blob,
                             "not a cache result");
      continue;
    }
    // Read-through, under this machine's paths: the next build finds it
    // here. A failure to keep it costs that build a download, nothing else.
    if (writeFileAtomic(resultPath(here->resultKey), *blob).ok())
      addLocalCandidate(primaryKey, *here).ignoreError();
    return entry;
  }
  return std::nullopt;
}

Status BuildCache::addLocalCandidate(const std::string &primaryKey,
                                     const Candidate &candidate) {
  // Read-modify-write of the manifest: a concurrent writer may win the
  // rename and drop our candidate; that costs one future miss, never a
  // wrong hit.
  std::vector<Candidate> candidates = readManifest(manifestPath(primaryKey));
  pushFront(candidates, candidate);
  return writeFileAtomic(manifestPath(primaryKey), encodeManifest(candidates));
}

void BuildCache::writeBack(const std::string &primaryKey, Candidate candidate,
                           const std::string &result,
                           const fs::path &sourceDir) {
  std::vector<Candidate> candidates;
  {
    std::lock_guard<std::mutex> lock(remoteSeenMutex_);
    auto seen = remoteSeen_.find(primaryKey);
    if (seen != remoteSeen_.end()) {
      candidates = std::move(seen->second);
      remoteSeen_.erase(seen);
    }
  }
  candidate.blob = sha256Hex(result);
  if (!sourceDir.empty())
    for (const auto &[path, hash] : candidate.dependencies)
      candidate.relative.push_back(
          fs::path(path)
              .lexically_relative(sourceDir.lexically_normal())
              .string());
  // The blob first: a manifest never names a result the server lacks.
  if (!remote_->put(RemoteArea::ContentStore, candidate.blob, result))
    return;
  pushFront(candidates, std::move(candidate));
  remote_->put(RemoteArea::ActionCache, primaryKey, encodeManifest(candidates));
}

Status BuildCache::store(const std::string &primaryKey, const CacheEntry &entry,
                         fs::file_time_type jobStart,
                         const fs::path &sourceDir) {
  if (!isHexKey(primaryKey))
    return invalidArgument("build cache: malformed key `" + primaryKey + "`");
  Candidate candidate;
  for (const std::string &path : entry.dependencies) {
    std::error_code ec;
    fs::file_time_type modified = fs::last_write_time(path, ec);
    std::optional<std::string> hash;
    if (!ec && modified < jobStart)
      hash = hashFile(path);
    if (!hash)
      return okStatus(); // Missing or edited during the job: don't cache.
    candidate.dependencies.emplace_back(path, *hash);
  }
  candidate.resultKey = resultKeyFor(primaryKey, candidate.dependencies);

  std::map<std::string, std::string> sections;
  sections["meta"] = toCbor(metaToJson(entry));
  for (const auto &[kind, bytes] : entry.outputs)
    sections["out:" + kind] = bytes;
  std::string result = encodeContainer(sections);
  KB_RETURN_IF_ERROR(writeFileAtomic(resultPath(candidate.resultKey), result));
  KB_RETURN_IF_ERROR(addLocalCandidate(primaryKey, candidate));
  ++stores_;
  if (remote_)
    writeBack(primaryKey, std::move(candidate), result, sourceDir);
  return okStatus();
}

BuildCache::Stats BuildCache::stats() const {
  return Stats{hits_.load(), remoteHits_.load(), misses_.load(),
               stores_.load()};
}

} // namespace kb::toolchains
