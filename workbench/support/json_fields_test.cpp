//===- workbench/support/json_fields_test.cpp - One field table per object ===//
//
// One table writes and reads a struct: what is written reads back, and a
// reader's error names the file, the place, what it expected and what it
// found.
//
//===----------------------------------------------------------------------===//
#include "workbench/support/json_fields.h"

#include <gtest/gtest.h>

namespace kb::workbench {
namespace {

enum class Color { Red, Green };
const char *toString(Color c) { return c == Color::Red ? "red" : "green"; }
constexpr std::array<Color, 2> kColors = {Color::Red, Color::Green};

struct Part {
  std::string name;
  Color color = Color::Red;
  uint32_t count = 0;
  std::optional<double> weight;
  std::vector<std::string> tags;                  // added later
  std::string note;                               // omitted when empty
  std::vector<std::pair<std::string, int>> order; // keys keep their order
};

} // namespace

template <> struct JsonFields<Part> {
  template <typename IO, typename S> static Status map(IO &io, S &p) {
    KB_RETURN_IF_ERROR(io.field("name", p.name));
    KB_RETURN_IF_ERROR(io.field("color", p.color, oneOf(kColors)));
    KB_RETURN_IF_ERROR(io.field("count", p.count));
    KB_RETURN_IF_ERROR(io.field("weight", p.weight));
    KB_RETURN_IF_ERROR(io.field("tags", p.tags, Presence::MayBeAbsent));
    KB_RETURN_IF_ERROR(io.field("note", p.note, Presence::OmitWhenEmpty));
    KB_RETURN_IF_ERROR(io.field("order", p.order));
    return io.check([&]() -> std::string {
      return p.count > 100 ? "count: " + std::to_string(p.count) +
                                 " is more than a part has"
                           : "";
    });
  }
};

namespace {

const JsonOrigin kOrigin{"parts.json", "regenerate the file"};

Status readError(const OrderedJson &j) {
  Part p;
  return fromJsonObject(j, kOrigin, p);
}

TEST(JsonFieldsTest, WritesInTableOrderAndReadsBack) {
  Part p{"bolt", Color::Green,        3, std::nullopt, {"m4"},
         "",     {{"z", 1}, {"a", 2}}};
  OrderedJson j = toJsonObject(p);
  EXPECT_EQ(j.dump(), R"({"name":"bolt","color":"green","count":3,)"
                      R"("weight":null,"tags":["m4"],"order":{"z":1,"a":2}})");
  Part back;
  ASSERT_TRUE(fromJsonObject(j, kOrigin, back).ok());
  EXPECT_EQ(back.name, "bolt");
  EXPECT_EQ(back.color, Color::Green);
  EXPECT_EQ(back.tags, p.tags);
  EXPECT_EQ(back.order, p.order);
  EXPECT_EQ(toJsonObject(back), j);
}

TEST(JsonFieldsTest, AKeyAddedLaterMayBeAbsent) {
  OrderedJson j = toJsonObject(Part{"nut"});
  j.erase("tags");
  j["note"] = "kept";
  Part back;
  ASSERT_TRUE(fromJsonObject(j, kOrigin, back).ok());
  EXPECT_TRUE(back.tags.empty());
  EXPECT_EQ(back.note, "kept");
}

TEST(JsonFieldsTest, ErrorsNameFilePlaceExpectedAndFound) {
  OrderedJson good = toJsonObject(Part{"nut"});
  OrderedJson j = good;
  j.erase("count");
  EXPECT_EQ(readError(j).message(),
            "parts.json: count: missing (regenerate the file)");
  j = good;
  j["count"] = -1;
  EXPECT_EQ(readError(j).message(),
            "parts.json: count: expected a non-negative integer, found a "
            "number");
  j["count"] = uint64_t(1) << 40;
  EXPECT_EQ(readError(j).message(),
            "parts.json: count: 1099511627776 is out of range");
  j["count"] = 101;
  EXPECT_EQ(readError(j).message(),
            "parts.json: count: 101 is more than a part has");
  j = good;
  j["color"] = "blue";
  EXPECT_EQ(readError(j).message(),
            "parts.json: color: expected one of red | green, found \"blue\"");
  j = good;
  j["tags"] = {"a", 2};
  EXPECT_EQ(readError(j).message(),
            "parts.json: tags[1]: expected a string, found a number");
  EXPECT_EQ(readError(OrderedJson::array()).message(),
            "parts.json: expected a JSON object, found array");
}

} // namespace
} // namespace kb::workbench
