//===- common/specialization.cpp - SPIR-V specialization constants --------===//
#include "common/specialization.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace kb {
namespace {

constexpr uint32_t kGLCompute = 5;
constexpr const char *kAxes[] = {"local_size_x", "local_size_y",
                                 "local_size_z"};

/// |entry|, or the module's only GLCompute entry point (GLSL's `main`
/// stands for any export name, as in checkSpirvAbi).
const SpirvEntryPoint *computeEntry(const SpirvModule &spirv,
                                    std::string_view entry) {
  if (const SpirvEntryPoint *ep = spirv.findEntryPoint(entry))
    if (ep->executionModel == kGLCompute)
      return ep;
  const SpirvEntryPoint *only = nullptr;
  for (const SpirvEntryPoint &ep : spirv.entryPoints)
    if (ep.executionModel == kGLCompute) {
      if (only)
        return nullptr;
      only = &ep;
    }
  return only;
}

const SpirvSpecConstant *bySpecId(const SpirvModule &spirv, uint32_t id) {
  for (const SpirvSpecConstant &c : spirv.specConstants)
    if (c.specId == id)
      return &c;
  return nullptr;
}

bool isDecimal(std::string_view text) {
  return !text.empty() && text.size() <= 10 &&
         text.find_first_not_of("0123456789") == std::string_view::npos;
}

std::string defaultText(const SpirvSpecConstant &c) {
  if (c.type == "bool")
    return c.defaultBits ? "true" : "false";
  if (c.type == "f32") {
    float f;
    uint32_t bits = static_cast<uint32_t>(c.defaultBits);
    std::memcpy(&f, &bits, 4);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", f);
    return buf;
  }
  if (c.type == "f64") {
    double d;
    std::memcpy(&d, &c.defaultBits, 8);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", d);
    return buf;
  }
  if (c.type == "i32")
    return std::to_string(static_cast<int32_t>(c.defaultBits));
  if (c.type == "i64")
    return std::to_string(static_cast<int64_t>(c.defaultBits));
  return std::to_string(c.defaultBits);
}

/// The constant |key| names, or an error listing what |spirv| declares.
StatusOr<const SpirvSpecConstant *> findConstant(const SpirvModule &spirv,
                                                 std::string_view entry,
                                                 const std::string &key) {
  auto unknown = [&](const std::string &why) {
    return invalidArgument(
        "[specialization] `" + key + "`: " + why +
        "; the module declares: " + describeSpecConstants(spirv, entry));
  };
  if (isDecimal(key)) {
    uint64_t id = std::strtoull(key.c_str(), nullptr, 10);
    const SpirvSpecConstant *c =
        id <= std::numeric_limits<uint32_t>::max()
            ? bySpecId(spirv, static_cast<uint32_t>(id))
            : nullptr;
    if (!c)
      return unknown("the module has no specialization constant with "
                     "SpecId " +
                     key);
    return c;
  }
  for (int d = 0; d < 3; ++d) {
    if (key != kAxes[d])
      continue;
    const SpirvEntryPoint *ep = computeEntry(spirv, entry);
    const SpirvSpecConstant *c =
        ep && ep->specIds[d] ? bySpecId(spirv, *ep->specIds[d]) : nullptr;
    if (!c)
      return unknown(
          "the workgroup size of the entry point is not a specialization "
          "constant in this dimension (write `layout(" +
          std::string(kAxes[d]) +
          "_id = N) in;` in the shader, or drop the "
          "key)");
    return c;
  }
  const SpirvSpecConstant *found = nullptr;
  for (const SpirvSpecConstant &c : spirv.specConstants)
    if (c.name == key) {
      if (found)
        return invalidArgument(
            "[specialization] `" + key +
            "`: several specialization constants have this name (SpecIds " +
            std::to_string(found->specId) + " and " + std::to_string(c.specId) +
            "); name one by its SpecId instead");
      found = &c;
    }
  if (!found)
    return unknown("no specialization constant has this name");
  return found;
}

std::optional<int64_t> parseSigned(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return v;
}

std::optional<uint64_t> parseUnsigned(std::string_view text) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return v;
}

std::optional<double> parseReal(const std::string &text) {
  if (text.empty())
    return std::nullopt;
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
    return std::nullopt;
  return v;
}

/// |setting|'s value as |c|'s type, or an error naming both.
StatusOr<SpecializationValue> encode(const SpirvSpecConstant &c,
                                     const SpecializationSetting &setting) {
  SpecializationValue out;
  out.id = c.specId;
  out.name = setting.key;
  const std::string &text = setting.value;
  auto wrong = [&](const std::string &expected) {
    return invalidArgument("[specialization] `" + setting.key + "` = " + text +
                           ": specialization constant SpecId " +
                           std::to_string(c.specId) +
                           (c.name.empty() ? "" : " (`" + c.name + "`)") +
                           " is " + c.type + "; expected " + expected);
  };
  if (c.type == "bool") {
    if (text != "true" && text != "false")
      return wrong("true or false");
    out.bits = text == "true";
  } else if (c.type == "i32" || c.type == "i64") {
    bool wide = c.type == "i64";
    std::optional<int64_t> v = parseSigned(text);
    int64_t lo = wide ? std::numeric_limits<int64_t>::min()
                      : std::numeric_limits<int32_t>::min();
    int64_t hi = wide ? std::numeric_limits<int64_t>::max()
                      : std::numeric_limits<int32_t>::max();
    if (!v || *v < lo || *v > hi)
      return wrong("an integer from " + std::to_string(lo) + " to " +
                   std::to_string(hi));
    out.size = wide ? 8 : 4;
    out.bits = wide ? static_cast<uint64_t>(*v)
                    : static_cast<uint32_t>(static_cast<int32_t>(*v));
  } else if (c.type == "u32" || c.type == "u64") {
    bool wide = c.type == "u64";
    std::optional<uint64_t> v =
        text.empty() || text[0] == '-' ? std::nullopt : parseUnsigned(text);
    uint64_t hi = wide ? std::numeric_limits<uint64_t>::max()
                       : std::numeric_limits<uint32_t>::max();
    if (!v || *v > hi)
      return wrong("an integer from 0 to " + std::to_string(hi));
    out.size = wide ? 8 : 4;
    out.bits = *v;
  } else if (c.type == "f32" || c.type == "f64") {
    std::optional<double> v = parseReal(text);
    if (c.type == "f32") {
      if (!v || std::fabs(*v) > std::numeric_limits<float>::max())
        return wrong("a finite number within the range of a 32-bit float");
      float f = static_cast<float>(*v);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      out.bits = bits;
    } else {
      if (!v)
        return wrong("a finite number");
      std::memcpy(&out.bits, &*v, 8);
      out.size = 8;
    }
  } else {
    return invalidArgument(
        "[specialization] `" + setting.key + "`: specialization constant " +
        "SpecId " + std::to_string(c.specId) + " is " + c.type +
        "; [specialization] sets 32- and 64-bit int, uint and float "
        "constants and bools only");
  }
  return out;
}

} // namespace

std::string formatSpecializationSetting(const SpecializationSetting &setting) {
  return setting.key + "=" + setting.value;
}

std::optional<SpecializationSetting>
parseSpecializationSetting(std::string_view text) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
    return std::nullopt;
  return SpecializationSetting{std::string(text.substr(0, eq)),
                               std::string(text.substr(eq + 1))};
}

StatusOr<std::vector<SpecializationValue>>
resolveSpecialization(const SpirvModule &spirv, std::string_view entry,
                      const std::vector<SpecializationSetting> &settings) {
  std::vector<SpecializationValue> values;
  for (const SpecializationSetting &setting : settings) {
    KB_ASSIGN_OR_RETURN(const SpirvSpecConstant *c,
                        findConstant(spirv, entry, setting.key));
    for (const SpecializationValue &other : values)
      if (other.id == c->specId)
        return invalidArgument("[specialization] `" + setting.key + "` and `" +
                               other.name +
                               "` both set specialization constant SpecId " +
                               std::to_string(c->specId) + "; keep one");
    KB_ASSIGN_OR_RETURN(SpecializationValue value, encode(*c, setting));
    values.push_back(std::move(value));
  }
  std::sort(values.begin(), values.end(),
            [](const SpecializationValue &a, const SpecializationValue &b) {
              return a.id < b.id;
            });
  return values;
}

std::optional<std::array<uint32_t, 3>>
specializedWorkgroupSize(const SpirvEntryPoint &entry,
                         const std::vector<SpecializationValue> &values) {
  if (!entry.workgroupSize)
    return std::nullopt;
  std::array<uint32_t, 3> size = *entry.workgroupSize;
  for (int d = 0; d < 3; ++d)
    for (const SpecializationValue &v : values)
      if (entry.specIds[d] && *entry.specIds[d] == v.id)
        size[d] = static_cast<uint32_t>(v.bits);
  return size;
}

std::string describeSpecConstants(const SpirvModule &spirv,
                                  std::string_view entry) {
  const SpirvEntryPoint *ep = computeEntry(spirv, entry);
  std::string out;
  for (const SpirvSpecConstant &c : spirv.specConstants) {
    std::string name = c.name;
    for (int d = 0; ep && d < 3; ++d)
      if (ep->specIds[d] && *ep->specIds[d] == c.specId)
        name = kAxes[d];
    out += (out.empty() ? "" : ", ") +
           (name.empty() ? std::string("(unnamed)") : name) + " (SpecId " +
           std::to_string(c.specId) + ", " + c.type + ", default " +
           defaultText(c) + ")";
  }
  return out.empty() ? "no specialization constants" : out;
}

} // namespace kb
