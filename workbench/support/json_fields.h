//===- workbench/support/json_fields.h - One field table per JSON object --===//
//
// The JSON files kernel-bench writes and reads back (bench.json, build.json,
// the tune cache) spell each key once: a struct's JsonFields<T>
// specialization lists its keys in file order, and that one list drives both
// the writer (JsonWriter emits the keys in that order) and the reader
// (JsonReader checks every value's type). It is LLVM's yaml::MappingTraits
// for JSON:
//
//   template <> struct JsonFields<Mismatch> {
//     template <typename IO, typename S> static Status map(IO &io, S &m) {
//       KB_RETURN_IF_ERROR(io.field("output", m.output));
//       return io.field("index", m.index);
//     }
//   };
//
// |S| is T when reading and const T when writing. Members map by type:
// strings, booleans, numbers, std::optional (null when empty), std::vector
// (an array), std::map<std::string, T> and std::vector<std::pair<
// std::string, T>> (an object; the pairs keep their order), structs with
// their own JsonFields (an object) and OrderedJson (kept as it is, for a
// part with its own reader). A member kept in another shape than its type
// (an enum as its spelling, samples as columns) names a codec: oneOf(), or
// a struct with `Stored`, `store(value)` and `load(stored, value)`. Besides
// fields, a table may hold io.derived(key, compute) (written, not read: a
// format name, a command line made from argv) and io.check(why) (a rule
// across fields, checked only when reading).
//
// A reader's error names the file, the place, what was expected and what
// was found ("bench.json: benchmarks[2].workload: expected a string, found a
// number"), and for a missing key what to do (JsonOrigin::remedy).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_SUPPORT_JSON_FIELDS_H_
#define KB_WORKBENCH_SUPPORT_JSON_FIELDS_H_

#include "common/status.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace kb::workbench {

/// Keys keep their table's order when written.
using OrderedJson = nlohmann::ordered_json;

/// Specialized per struct with
///   template <typename IO, typename S> static Status map(IO &io, S &value);
/// calling io.field(key, value.member, ...) once per key, in file order.
/// The primary template marks a type without a table.
template <typename T> struct JsonFields {
  static constexpr bool kNoTable = true;
};

/// When a key is written, and what its absence means to a reader.
enum class Presence {
  /// Always written; a reader refuses an object without it.
  Required,
  /// Always written; absent from files written before it existed, which
  /// read as the member's default.
  MayBeAbsent,
  /// Written only when it holds something (a set optional, a non-empty
  /// string, array or object, a non-zero number); absent reads as the
  /// member's default.
  OmitWhenEmpty,
};

/// The file being read and what to do about one that lacks a key.
struct JsonOrigin {
  std::string file;
  /// Appended to "missing", e.g. "the file is not a complete bench.json;
  /// regenerate it with kernel-bench bench".
  std::string remedy;
};

namespace json_detail {

template <typename T> struct IsOptional : std::false_type {};
template <typename T> struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T> struct IsVector : std::false_type {};
template <typename T, typename A>
struct IsVector<std::vector<T, A>> : std::true_type {};
template <typename T> struct IsStringMap : std::false_type {};
template <typename T>
struct IsStringMap<std::map<std::string, T>> : std::true_type {};
/// An object whose keys keep the order they were added in.
template <typename T>
struct IsStringMap<std::vector<std::pair<std::string, T>>> : std::true_type {};

template <typename T, typename = void> struct HasFields : std::true_type {};
template <typename T>
struct HasFields<T, std::void_t<decltype(JsonFields<T>::kNoTable)>>
    : std::false_type {};

template <typename T, typename = void> struct HasEmpty : std::false_type {};
template <typename T>
struct HasEmpty<T, std::void_t<decltype(std::declval<const T &>().empty())>>
    : std::true_type {};

/// What Presence::OmitWhenEmpty leaves out; a struct is never empty.
template <typename T> bool isEmpty(const T &value) {
  if constexpr (IsOptional<T>::value)
    return !value.has_value();
  else if constexpr (std::is_arithmetic_v<T>)
    return value == T{};
  else if constexpr (HasEmpty<T>::value)
    return value.empty();
  else
    return false;
}

/// "a string", "a number", ...: what a reader expected of a T.
template <typename T> const char *expected() {
  if constexpr (std::is_same_v<T, std::string>)
    return "a string";
  else if constexpr (std::is_same_v<T, bool>)
    return "true or false";
  else if constexpr (std::is_floating_point_v<T>)
    return "a number";
  else if constexpr (std::is_signed_v<T>)
    return "an integer";
  else
    return "a non-negative integer";
}

/// The spelling of an enumerator (its toString) or of a string value.
template <typename E> std::string spelling(const E &value) {
  if constexpr (std::is_convertible_v<E, std::string>)
    return std::string(value);
  else
    return toString(value);
}

} // namespace json_detail

/// A codec for a member written as one of |values|' spellings: an enum (its
/// toString) or a string restricted to a list.
template <typename E, size_t N> struct OneOf {
  const std::array<E, N> &values;
  using Stored = std::string;

  template <typename M> std::string store(const M &value) const {
    return json_detail::spelling(value);
  }
  /// "" when |text| is one of the values; else why not.
  template <typename M> std::string load(const std::string &text, M &out) const;
};

template <typename E, size_t N>
template <typename M>
std::string OneOf<E, N>::load(const std::string &text, M &out) const {
  std::string expected;
  for (const E &e : values) {
    std::string spelled = json_detail::spelling(e);
    if (text == spelled) {
      if constexpr (std::is_same_v<M, std::string>)
        out = spelled;
      else
        out = e;
      return "";
    }
    expected += (expected.empty() ? "" : " | ") + spelled;
  }
  return ": expected one of " + expected + ", found \"" + text + "\"";
}

template <typename E, size_t N> OneOf<E, N> oneOf(const std::array<E, N> &v) {
  return {v};
}

/// A codec for an array whose elements each use |Element|.
template <typename Element> struct ListOf {
  Element element;
  using Stored = std::vector<typename Element::Stored>;

  template <typename M> Stored store(const std::vector<M> &values) const {
    Stored out;
    for (const M &v : values)
      out.push_back(element.store(v));
    return out;
  }
  template <typename M>
  std::string load(const Stored &stored, std::vector<M> &out) const {
    out.assign(stored.size(), M{});
    for (size_t i = 0; i < stored.size(); ++i)
      if (std::string why = element.load(stored[i], out[i]); !why.empty())
        return "[" + std::to_string(i) + "]" + why;
    return "";
  }
};

template <typename Element> ListOf<Element> listOf(Element element) {
  return {std::move(element)};
}

/// Writes a struct's fields, in its table's order, into a JSON object.
class JsonWriter {
public:
  explicit JsonWriter(OrderedJson &object) : out_(object) {
    out_ = OrderedJson::object();
  }

  template <typename T>
  Status field(std::string_view key, const T &value,
               Presence presence = Presence::Required) {
    if (presence == Presence::OmitWhenEmpty && json_detail::isEmpty(value))
      return okStatus();
    encode(value, out_[std::string(key)]);
    return okStatus();
  }
  /// A member kept in another shape (|codec|).
  template <typename T, typename Codec>
  Status field(std::string_view key, const T &value, const Codec &codec,
               Presence presence = Presence::Required) {
    return field(key, codec.store(value), presence);
  }
  /// A key computed from other fields or fixed (a command line from its
  /// argv, a format name): written, not read back.
  template <typename Compute>
  Status derived(std::string_view key, const Compute &compute) {
    encode(compute(), out_[std::string(key)]);
    return okStatus();
  }
  /// A rule across fields: only a reader checks it.
  Status check(const std::function<std::string()> &) { return okStatus(); }

  /// |value| as JSON: an object for a struct with JsonFields.
  template <typename T> static void encode(const T &value, OrderedJson &out);

private:
  OrderedJson &out_;
};

template <typename T>
void JsonWriter::encode(const T &value, OrderedJson &out) {
  if constexpr (json_detail::HasFields<T>::value) {
    JsonWriter writer(out);
    // A writer's fields never fail: only reading checks anything.
    (void)JsonFields<T>::map(writer, value);
  } else if constexpr (json_detail::IsOptional<T>::value) {
    if (value)
      encode(*value, out);
    else
      out = nullptr;
  } else if constexpr (json_detail::IsStringMap<T>::value) {
    out = OrderedJson::object();
    for (const auto &[key, element] : value)
      encode(element, out[key]);
  } else if constexpr (json_detail::IsVector<T>::value) {
    out = OrderedJson::array();
    for (const auto &element : value)
      encode(element, out.emplace_back());
  } else {
    out = value;
  }
}

/// Reads a struct's fields from a JSON object, checking each value's type.
class JsonReader {
public:
  /// |origin| outlives the reader; |path| locates |object| in the file
  /// ("benchmarks[2].variants[0]"), empty for the document.
  JsonReader(const OrderedJson &object, const JsonOrigin &origin,
             std::string path = "")
      : j_(object), origin_(origin), path_(std::move(path)) {}

  template <typename T>
  Status field(std::string_view key, T &out,
               Presence presence = Presence::Required) const {
    auto it = j_.find(key);
    if (it == j_.end())
      return presence == Presence::Required ? missing(key) : okStatus();
    return decode(std::string(key), *it, out);
  }
  template <typename T, typename Codec>
  Status field(std::string_view key, T &out, const Codec &codec,
               Presence presence = Presence::Required) const;
  template <typename Compute>
  Status derived(std::string_view, const Compute &) const {
    return okStatus();
  }
  /// |why()|: "" when the fields read so far keep the rule; else the
  /// problem, located from this object ("plan[2].shard: 4 is out of
  /// range").
  Status check(const std::function<std::string()> &why) const;

  /// "<file>: <path>.<key>".
  std::string where(std::string_view key) const;
  Status missing(std::string_view key) const;
  Status wrong(std::string_view key, std::string_view expected,
               const OrderedJson &found) const;

  /// |value| (at |key|, for messages) into |out|.
  template <typename T>
  Status decode(const std::string &key, const OrderedJson &value, T &out) const;

private:
  /// A map or an ordered list of pairs, from a JSON object.
  template <typename T>
  Status decodeObject(const std::string &key, const OrderedJson &value,
                      T &out) const;
  template <typename T>
  Status decodeScalar(const std::string &key, const OrderedJson &value,
                      T &out) const;
  template <typename T>
  Status decodeInteger(const std::string &key, const OrderedJson &value,
                       T &out) const;

  const OrderedJson &j_;
  const JsonOrigin &origin_;
  std::string path_;
};

template <typename T, typename Codec>
Status JsonReader::field(std::string_view key, T &out, const Codec &codec,
                         Presence presence) const {
  typename Codec::Stored stored{};
  auto it = j_.find(key);
  if (it == j_.end())
    return presence == Presence::Required ? missing(key) : okStatus();
  KB_RETURN_IF_ERROR(decode(std::string(key), *it, stored));
  std::string why = codec.load(stored, out);
  return why.empty() ? okStatus() : invalidArgument(where(key) + why);
}

template <typename T>
Status JsonReader::decode(const std::string &key, const OrderedJson &value,
                          T &out) const {
  if constexpr (json_detail::HasFields<T>::value) {
    if (!value.is_object())
      return wrong(key, "an object", value);
    JsonReader nested(value, origin_, (path_.empty() ? "" : path_ + ".") + key);
    return JsonFields<T>::map(nested, out);
  } else if constexpr (json_detail::IsOptional<T>::value) {
    if (value.is_null()) {
      out.reset();
      return okStatus();
    }
    return decode(key, value, out.emplace());
  } else if constexpr (json_detail::IsStringMap<T>::value) {
    return decodeObject(key, value, out);
  } else if constexpr (json_detail::IsVector<T>::value) {
    if (!value.is_array())
      return wrong(key, "an array", value);
    out.clear();
    out.reserve(value.size());
    for (size_t i = 0; i < value.size(); ++i)
      KB_RETURN_IF_ERROR(decode(key + "[" + std::to_string(i) + "]", value[i],
                                out.emplace_back()));
    return okStatus();
  } else if constexpr (std::is_same_v<T, OrderedJson>) {
    out = value; // kept as written, for a part with its own reader
    return okStatus();
  } else {
    return decodeScalar(key, value, out);
  }
}

template <typename T>
Status JsonReader::decodeObject(const std::string &key,
                                const OrderedJson &value, T &out) const {
  if (!value.is_object())
    return wrong(key, "an object", value);
  out.clear();
  for (const auto &[name, element] : value.items()) {
    typename T::value_type::second_type decoded{};
    KB_RETURN_IF_ERROR(decode(key + "." + name, element, decoded));
    out.insert(out.end(), typename T::value_type(name, std::move(decoded)));
  }
  return okStatus();
}

template <typename T>
Status JsonReader::decodeScalar(const std::string &key,
                                const OrderedJson &value, T &out) const {
  bool fits;
  if constexpr (std::is_same_v<T, std::string>)
    fits = value.is_string();
  else if constexpr (std::is_same_v<T, bool>)
    fits = value.is_boolean();
  else if constexpr (std::is_floating_point_v<T>)
    fits = value.is_number();
  else
    return decodeInteger(key, value, out);
  if (!fits)
    return wrong(key, json_detail::expected<T>(), value);
  out = value.get<T>();
  return okStatus();
}

template <typename T>
Status JsonReader::decodeInteger(const std::string &key,
                                 const OrderedJson &value, T &out) const {
  static_assert(std::is_integral_v<T>, "no JSON mapping for this type");
  bool negative = value.is_number_integer() && value < 0;
  if (!value.is_number_integer() || (negative && std::is_unsigned_v<T>))
    return wrong(key, json_detail::expected<T>(), value);
  bool fits = negative
                  ? value.get<int64_t>() >=
                        static_cast<int64_t>(std::numeric_limits<T>::min())
                  : value.get<uint64_t>() <=
                        static_cast<uint64_t>(std::numeric_limits<T>::max());
  if (!fits)
    return invalidArgument(where(key) + ": " + value.dump() +
                           " is out of range");
  out = value.get<T>();
  return okStatus();
}

/// |value| as a JSON object, by its JsonFields.
template <typename T> OrderedJson toJsonObject(const T &value) {
  OrderedJson out;
  JsonWriter::encode(value, out);
  return out;
}

/// Reads |object| into |out| by T's JsonFields.
template <typename T>
Status fromJsonObject(const OrderedJson &object, const JsonOrigin &origin,
                      T &out) {
  JsonReader reader(object, origin);
  if (!object.is_object())
    return reader.wrong("", "a JSON object", object);
  return JsonFields<T>::map(reader, out);
}

} // namespace kb::workbench

#endif // KB_WORKBENCH_SUPPORT_JSON_FIELDS_H_
