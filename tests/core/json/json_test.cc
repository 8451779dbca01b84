// Tests for the strict JSON parser: values, offsets, numbers at the int64
// boundaries, string decoding, every class of error with its LINE:COL, limits,
// LineCol and AppendQuoted.

#include "json/json.h"

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter::internal::json {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

using namespace std::string_view_literals;

Document ParseOk(std::string_view text, const ParseOptions& options = {}) {
  absl::StatusOr<Document> doc = Parse(text, options);
  EXPECT_THAT(doc, IsOk()) << "input: " << text;
  return doc.ok() ? std::move(*doc) : Document();
}

// The full error message, or "ok" when parsing succeeded.
std::string ErrorOf(std::string_view text, const ParseOptions& options = {}) {
  absl::StatusOr<Document> doc = Parse(text, options);
  if (doc.ok()) return "ok";
  EXPECT_THAT(doc, StatusIs(absl::StatusCode::kInvalidArgument));
  return std::string(doc.status().message());
}

TEST(JsonTest, Literals) {
  Document doc = ParseOk("  null ");
  EXPECT_TRUE(doc.root().is_null());
  EXPECT_EQ(doc.root().kind(), Kind::kNull);
  EXPECT_EQ(doc.root().offset(), 2u);

  doc = ParseOk("\t\r\ntrue");
  EXPECT_TRUE(doc.root().is_bool());
  EXPECT_TRUE(doc.root().as_bool());
  EXPECT_EQ(doc.root().offset(), 3u);

  doc = ParseOk("false");
  EXPECT_EQ(doc.root().kind(), Kind::kBool);
  EXPECT_FALSE(doc.root().as_bool());
}

TEST(JsonTest, KindPredicatesAreExclusive) {
  Document doc = ParseOk(R"([null, true, 1, "s", [], {}])");
  const Value& root = doc.root();
  ASSERT_EQ(root.size(), 6u);
  const Kind kinds[] = {Kind::kNull,   Kind::kBool,  Kind::kNumber,
                        Kind::kString, Kind::kArray, Kind::kObject};
  for (size_t i = 0; i < 6; ++i) {
    const Value& v = root.at(i);
    EXPECT_EQ(v.kind(), kinds[i]);
    const int kinds_true = v.is_null() + v.is_bool() + v.is_number() +
                           v.is_string() + v.is_array() + v.is_object();
    EXPECT_EQ(kinds_true, 1) << i;
  }
  EXPECT_EQ(root.at(4).size(), 0u);
  EXPECT_EQ(root.at(5).size(), 0u);
  EXPECT_EQ(root.at(5).Find("x"), nullptr);
}

TEST(JsonTest, DefaultValueAndDocumentAreNull) {
  Value v;
  EXPECT_TRUE(v.is_null());
  EXPECT_EQ(v.offset(), 0u);
  EXPECT_EQ(v.size(), 0u);
  Document doc;
  EXPECT_TRUE(doc.root().is_null());
}

TEST(JsonTest, TopLevelScalars) {
  EXPECT_EQ(ParseOk("42").root().as_int64(), 42);
  EXPECT_EQ(ParseOk(R"( "x" )").root().as_string(), "x");
  EXPECT_EQ(ParseOk("-1.5e3").root().as_double(), -1500.0);
}

TEST(JsonTest, IntegerLiterals) {
  struct Case {
    std::string_view text;
    bool fits;
    int64_t value;
  };
  const Case cases[] = {
      {"0", true, 0},
      {"-0", true, 0},
      {"12", true, 12},
      {"-3", true, -3},
      {"9223372036854775807", true, std::numeric_limits<int64_t>::max()},
      {"-9223372036854775808", true, std::numeric_limits<int64_t>::min()},
      {"-9223372036854775807", true, -9223372036854775807},
      {"9223372036854775808", false, 0},
      {"-9223372036854775809", false, 0},
      {"18446744073709551615", false, 0},
      {"18446744073709551616", false, 0},
      {"99999999999999999999", false, 0},
      {"92233720368547758070", false, 0},
      {"100000000000000000000000000000000000000000", false, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Document doc = ParseOk(c.text);
    const Value& v = doc.root();
    ASSERT_TRUE(v.is_number());
    EXPECT_TRUE(v.is_integer_literal());
    EXPECT_EQ(v.fits_int64(), c.fits);
    if (c.fits) {
      EXPECT_EQ(v.as_int64(), c.value);
    }
    EXPECT_EQ(v.number_text(), c.text);
  }
}

TEST(JsonTest, NonIntegerLiteralsDoNotFitInt64) {
  for (std::string_view text : {"1.0", "1e2", "1E2", "-0.0", "0e0", "5.5"}) {
    SCOPED_TRACE(text);
    Document doc = ParseOk(text);
    EXPECT_TRUE(doc.root().is_number());
    EXPECT_FALSE(doc.root().is_integer_literal());
    EXPECT_FALSE(doc.root().fits_int64());
    EXPECT_EQ(doc.root().number_text(), text);
  }
}

TEST(JsonTest, NumbersAsDouble) {
  struct Case {
    std::string_view text;
    double value;
  };
  const Case cases[] = {
      {"0", 0.0},
      {"1.5", 1.5},
      {"-2.5e-3", -0.0025},
      {"1E2", 100.0},
      {"1e+2", 100.0},
      {"123456789012345678901234567890", 1.2345678901234568e29},
      {"9223372036854775807", 9223372036854775807.0},
      {"9007199254740993", 9007199254740992.0},  // ties to even
      {"0.1", 0.1},
      {"2.2250738585072014e-308", 2.2250738585072014e-308},
      {"5e-324", 5e-324},
      {"1.7976931348623157e308", 1.7976931348623157e308},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(ParseOk(c.text).root().as_double(), c.value);
  }
}

TEST(JsonTest, DoublesBeyondRangeRoundToInfinityOrZero) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(ParseOk("1e400").root().as_double(), inf);
  EXPECT_EQ(ParseOk("-1e400").root().as_double(), -inf);
  EXPECT_EQ(ParseOk("1" + std::string(400, '0')).root().as_double(), inf);
  EXPECT_EQ(ParseOk("0.0000001e-320").root().as_double(), 0.0);
  EXPECT_EQ(ParseOk("1e-400").root().as_double(), 0.0);
  EXPECT_EQ(ParseOk("0." + std::string(400, '0') + "1").root().as_double(), 0.0);
  EXPECT_EQ(ParseOk("1e99999999999999999999").root().as_double(), inf);
  EXPECT_EQ(ParseOk("1e-99999999999999999999").root().as_double(), 0.0);
  const double neg_tiny = ParseOk("-1e-400").root().as_double();
  EXPECT_EQ(neg_tiny, 0.0);
  EXPECT_TRUE(std::signbit(neg_tiny));
  const double neg_zero = ParseOk("-0").root().as_double();
  EXPECT_EQ(neg_zero, 0.0);
  EXPECT_TRUE(std::signbit(neg_zero));
  EXPECT_FALSE(std::signbit(ParseOk("0").root().as_double()));
}

TEST(JsonTest, NumberTextIsExactAndPointsIntoInput) {
  const std::string_view text = "[ -12.50E+02 ]";
  Document doc = ParseOk(text);
  const Value& n = doc.root().at(0);
  EXPECT_EQ(n.number_text(), "-12.50E+02");
  EXPECT_EQ(n.number_text().data(), text.data() + 2);
  EXPECT_EQ(n.offset(), 2u);
  EXPECT_EQ(n.as_double(), -1250.0);
}

TEST(JsonTest, StringsWithoutEscapesAreViewsIntoInput) {
  const std::string_view text = R"(["plain", "caf\u00e9"])";
  Document doc = ParseOk(text);
  EXPECT_EQ(doc.root().at(0).as_string(), "plain");
  EXPECT_EQ(doc.root().at(0).as_string().data(), text.data() + 2);
  EXPECT_EQ(doc.root().at(1).as_string(), "caf\xC3\xA9");
  EXPECT_EQ(doc.root().at(1).offset(), 10u);
}

TEST(JsonTest, SimpleEscapes) {
  Document doc = ParseOk(R"("a\"b\\c\/d\be\ff\ng\rh\ti")");
  EXPECT_EQ(doc.root().as_string(), "a\"b\\c/d\be\ff\ng\rh\ti");
}

TEST(JsonTest, UnicodeEscapes) {
  EXPECT_EQ(ParseOk(R"("\u0041\u00e9\u00E9\u20AC")").root().as_string(),
            "A\xC3\xA9\xC3\xA9\xE2\x82\xAC");
  // A surrogate pair is one scalar value, U+1F600, in four bytes.
  EXPECT_EQ(ParseOk(R"("\ud83d\ude00")").root().as_string(), "\xF0\x9F\x98\x80");
  EXPECT_EQ(ParseOk(R"("\uDBFF\uDFFF")").root().as_string(), "\xF4\x8F\xBF\xBF");
  EXPECT_EQ(ParseOk(R"("\uD800\uDC00")").root().as_string(), "\xF0\x90\x80\x80");
  EXPECT_EQ(ParseOk(R"("\uffff")").root().as_string(), "\xEF\xBF\xBF");
}

TEST(JsonTest, EscapedNulIsKept) {
  Document doc = ParseOk(R"("a\u0000b")");
  EXPECT_EQ(doc.root().as_string(), "a\0b"sv);
  EXPECT_EQ(doc.root().as_string().size(), 3u);
}

TEST(JsonTest, RawUtf8IsKept) {
  const std::string text = "\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\x7F\"";
  EXPECT_EQ(ParseOk(text).root().as_string(), text.substr(1, text.size() - 2));
}

TEST(JsonTest, LongStringsWithEscapes) {
  // Longer than any storage block, with escapes at both ends.
  const std::string body(3 << 20, 'x');
  const std::string text = "[\"\\n" + body + "\\t\", \"\\u0041" + body + "\"]";
  Document doc = ParseOk(text);
  ASSERT_EQ(doc.root().size(), 2u);
  EXPECT_EQ(doc.root().at(0).as_string(), "\n" + body + "\t");
  EXPECT_EQ(doc.root().at(1).as_string(), "A" + body);
}

TEST(JsonTest, ArraysKeepOrderAndOffsets) {
  const std::string_view text = "[1, [2, [3]], \"x\", {}]";
  Document doc = ParseOk(text);
  const Value& root = doc.root();
  ASSERT_TRUE(root.is_array());
  ASSERT_EQ(root.size(), 4u);
  EXPECT_EQ(root.offset(), 0u);
  EXPECT_EQ(root.at(0).as_int64(), 1);
  EXPECT_EQ(root.at(0).offset(), 1u);
  EXPECT_EQ(root.at(1).offset(), 4u);
  EXPECT_EQ(root.at(1).at(0).as_int64(), 2);
  EXPECT_EQ(root.at(1).at(1).offset(), 8u);
  EXPECT_EQ(root.at(1).at(1).at(0).as_int64(), 3);
  EXPECT_EQ(root.at(2).as_string(), "x");
  EXPECT_EQ(root.at(2).offset(), 14u);
  EXPECT_TRUE(root.at(3).is_object());
  EXPECT_EQ(root.at(3).offset(), 19u);
}

TEST(JsonTest, LargeArray) {
  std::string text = "[";
  constexpr int kCount = 100000;
  for (int i = 0; i < kCount; ++i) {
    if (i > 0) text += ',';
    text += std::to_string(i - kCount / 2);
  }
  text += "]";
  Document doc = ParseOk(text);
  ASSERT_EQ(doc.root().size(), size_t{kCount});
  for (int i = 0; i < kCount; ++i) {
    ASSERT_EQ(doc.root().at(static_cast<size_t>(i)).as_int64(), i - kCount / 2);
  }
}

TEST(JsonTest, ObjectsKeepDocumentOrder) {
  const std::string_view text = R"({"uid": {"type": "User", "id": "alice"},
 "attrs": {}, "parents": [], "": 0})";
  Document doc = ParseOk(text);
  const Value& root = doc.root();
  ASSERT_TRUE(root.is_object());
  ASSERT_EQ(root.size(), 4u);
  EXPECT_EQ(root.key(0), "uid");
  EXPECT_EQ(root.key(1), "attrs");
  EXPECT_EQ(root.key(2), "parents");
  EXPECT_EQ(root.key(3), "");
  EXPECT_EQ(root.key_offset(0), 1u);
  EXPECT_EQ(root.key_offset(1), 42u);
  EXPECT_EQ(text[root.key_offset(2)], '"');
  EXPECT_EQ(root.member(0).offset(), 8u);
  EXPECT_EQ(root.member(0).Find("id")->as_string(), "alice");
  EXPECT_EQ(root.member(0).key(0), "type");
  EXPECT_EQ(root.Find("uid"), &root.member(0));
  EXPECT_EQ(root.Find("parents"), &root.member(2));
  EXPECT_EQ(root.Find("")->as_int64(), 0);
  EXPECT_EQ(root.Find(std::string_view()), &root.member(3));
  EXPECT_EQ(root.Find("missing"), nullptr);
  EXPECT_EQ(root.Find("ui"), nullptr);
  EXPECT_EQ(root.member(0).Find("uid"), nullptr);
  EXPECT_EQ(root.member(2).Find("uid"), nullptr);  // not an object
}

TEST(JsonTest, KeysAreDecoded) {
  Document doc = ParseOk(R"({"a\u00e9\n": 1, "\ud83d\ude00": 2})");
  EXPECT_EQ(doc.root().key(0), "a\xC3\xA9\n");
  EXPECT_EQ(doc.root().key(1), "\xF0\x9F\x98\x80");
  EXPECT_EQ(doc.root().Find("\xF0\x9F\x98\x80")->as_int64(), 2);
  EXPECT_EQ(doc.root().key_offset(1), 17u);
}

TEST(JsonTest, DuplicateKeysAreErrors) {
  EXPECT_EQ(ErrorOf("{\"uid\": 1,\n    \"uid\": 2}"), "2:5: duplicate key `uid`");
  // Keys are compared after decoding.
  EXPECT_EQ(ErrorOf(R"({"a": 1, "\u0061": 2})"), "1:10: duplicate key `a`");
  EXPECT_EQ(ErrorOf(R"({"": 1, "": 2})"), "1:9: duplicate key ``");
  // The same key in different objects is fine.
  EXPECT_EQ(ErrorOf(R"({"a": {"a": 1}, "b": {"a": 2}})"), "ok");
  // Control characters in the key are shown escaped.
  EXPECT_EQ(ErrorOf(R"({"a\n": 1, "a\n": 2})"), "1:12: duplicate key `a\\n`");
  const std::string long_key(100, 'k');
  EXPECT_EQ(ErrorOf("{\"" + long_key + "\":1,\"" + long_key + "\":2}"),
            "1:107: duplicate key `" + std::string(64, 'k') + "...`");
}

TEST(JsonTest, DuplicateKeysInLargeObjects) {
  // Past the size where duplicates are found by a hash set.
  for (int n : {15, 16, 17, 40, 1000}) {
    SCOPED_TRACE(n);
    std::string text = "{";
    for (int i = 0; i < n; ++i) text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
    const std::string complete = text.substr(0, text.size() - 1) + "}";
    Document doc = ParseOk(complete);
    ASSERT_EQ(doc.root().size(), static_cast<size_t>(n));
    EXPECT_EQ(doc.root().Find("k" + std::to_string(n - 1))->as_int64(), n - 1);
    const std::string dup = text + "\"k" + std::to_string(n / 2) + "\":0}";
    EXPECT_EQ(ErrorOf(dup), "1:" + std::to_string(text.size() + 1) + ": duplicate key `k" +
                                std::to_string(n / 2) + "`");
  }
  // Sibling and nested large objects do not share their key sets.
  std::string many;
  for (int i = 0; i < 20; ++i) many += "\"k" + std::to_string(i) + "\":{},";
  many.pop_back();
  const std::string nested = "{\"k0\": {" + many + "}, " + many.substr(many.find(',') + 1) + "}";
  EXPECT_EQ(ErrorOf("[{" + many + "}, {" + many + "}, " + nested + "]"), "ok");
}

TEST(JsonTest, AllowedDuplicatesKeepEveryMemberAndFindReturnsTheLast) {
  ParseOptions options;
  options.allow_duplicate_keys = true;
  Document doc = ParseOk(R"({"a": 1, "b": 2, "a": 3})", options);
  ASSERT_EQ(doc.root().size(), 3u);
  EXPECT_EQ(doc.root().key(0), "a");
  EXPECT_EQ(doc.root().key(2), "a");
  EXPECT_EQ(doc.root().Find("a")->as_int64(), 3);
  EXPECT_EQ(doc.root().Find("a"), &doc.root().member(2));
}

TEST(JsonTest, DocumentMoveKeepsValuesValid) {
  const std::string text = R"({"name": "caf\u00e9", "list": [1, 2, 3]})";
  Document a = ParseOk(text);
  const Value* list = a.root().Find("list");
  const std::string_view name = a.root().Find("name")->as_string();
  Document b(std::move(a));
  EXPECT_TRUE(a.root().is_null());  // NOLINT(bugprone-use-after-move)
  Document c;
  c = std::move(b);
  EXPECT_TRUE(b.root().is_null());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(c.root().Find("list"), list);
  EXPECT_EQ(list->at(2).as_int64(), 3);
  EXPECT_EQ(name, "caf\xC3\xA9");
}

struct ErrorCase {
  std::string_view text;
  std::string_view message;
};

class JsonErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(JsonErrorTest, ReportsLineColAndMessage) {
  EXPECT_EQ(ErrorOf(GetParam().text), GetParam().message)
      << "input: " << GetParam().text;
}

const ErrorCase kSyntaxErrors[] = {
    {"", "1:1: unexpected end of input"},
    {"   \n ", "2:2: unexpected end of input"},
    {"[1,", "1:4: unexpected end of input"},
    {"{\"a\"", "1:5: unexpected end of input"},
    {"{\"a\":", "1:6: unexpected end of input"},
    {"[", "1:2: unexpected end of input"},
    {"{", "1:2: unexpected end of input"},
    {"]", "1:1: expected a value"},
    {"[1,]", "1:3: trailing comma before `]`"},
    {"[1 , \n ]", "1:4: trailing comma before `]`"},
    {"{\"a\": 1,}", "1:8: trailing comma before `}`"},
    {"[,1]", "1:2: expected a value"},
    {"[1 2]", "1:4: expected `,` or `]` after an array element"},
    {"[1}", "1:3: expected `,` or `]` after an array element"},
    {"{\"a\": 1 \"b\": 2}", "1:9: expected `,` or `}` after an object member"},
    {"{\n  \"a\": 1,\n  \"b\": true \"c\"}", "3:13: expected `,` or `}` after an object member"},
    {"{\"a\" 1}", "1:6: expected `:` after an object key"},
    {"{1: 2}", "1:2: expected a string key"},
    {"{a: 2}", "1:2: expected a string key"},
    {"{\"a\": 1, 2}", "1:10: expected a string key"},
    {"{'a': 1}", "1:2: expected a string key"},
    {"'a'", "1:1: expected a value"},
    {"{\"a\": }", "1:7: expected a value"},
    // Numbers.
    {"01", "1:1: leading zeros are not allowed in a number"},
    {"-01", "1:2: leading zeros are not allowed in a number"},
    {"[00]", "1:2: leading zeros are not allowed in a number"},
    {"+1", "1:1: expected a value"},
    {".5", "1:1: expected a value"},
    {"1.", "1:3: unexpected end of input"},
    {"[1.]", "1:4: expected a digit after `.`"},
    {"1.e5", "1:3: expected a digit after `.`"},
    {"1e", "1:3: unexpected end of input"},
    {"[1e]", "1:4: expected a digit in the exponent"},
    {"[1e+]", "1:5: expected a digit in the exponent"},
    {"-", "1:2: unexpected end of input"},
    {"[-]", "1:3: expected a digit after `-`"},
    {"- 1", "1:2: expected a digit after `-`"},
    {"NaN", "1:1: expected a value"},
    {"[Infinity]", "1:2: expected a value"},
    {"-Infinity", "1:2: expected a digit after `-`"},
    {"0x10", "1:2: expected end of input after the value"},
    {"1_000", "1:2: expected end of input after the value"},
    // Literals.
    {"tru", "1:1: expected a value"},
    {"truex", "1:1: expected a value"},
    {"nul", "1:1: expected a value"},
    {"True", "1:1: expected a value"},
    {"[true false]", "1:7: expected `,` or `]` after an array element"},
    {"undefined", "1:1: expected a value"},
    // Trailing garbage, comments, several values.
    {"{} x", "1:4: expected end of input after the value"},
    {"1 2", "1:3: expected end of input after the value"},
    {"[]]", "1:3: expected end of input after the value"},
    {"{}\n{}", "2:1: expected end of input after the value"},
    {"// note\n1", "1:1: comments are not allowed"},
    {"[1, /* two */ 2]", "1:5: comments are not allowed"},
    {"1 // note", "1:3: comments are not allowed"},
    {"/", "1:1: expected a value"},
    // Whitespace beyond the four JSON ones.
    {"\f1", "1:1: expected a value, found U+000C"},
    {"[1,\v2]", "1:4: expected a value, found U+000B"},
    {"1\x7F", "1:2: expected end of input after the value, found U+007F"},
    {"\xC2\xA0" "1", "1:1: expected a value, found U+00A0"},
    {"[1]\xE2\x80\x8B", "1:4: expected end of input after the value, found U+200B"},
    {"\0"sv, "1:1: expected a value, found U+0000"},
    // Byte-order mark.
    {"\xEF\xBB\xBF{}", "1:1: a byte-order mark is not allowed"},
    {"[\xEF\xBB\xBF]", "1:2: expected a value, found U+FEFF"},
};
INSTANTIATE_TEST_SUITE_P(Syntax, JsonErrorTest, testing::ValuesIn(kSyntaxErrors));

const ErrorCase kStringErrors[] = {
    {"\"abc", "1:1: unterminated string"},
    {"[1, \"abc\\\"]", "1:5: unterminated string"},
    {"\"abc\\", "1:1: unterminated string"},
    {"[\"a\nb\"]", "1:4: control character U+000A must be escaped in a string"},
    {"\"\t\"", "1:2: control character U+0009 must be escaped in a string"},
    {"\"\0\""sv, "1:2: control character U+0000 must be escaped in a string"},
    {"\"\x1F\"", "1:2: control character U+001F must be escaped in a string"},
    {"{\"ab\\x\": 1}", "1:5: invalid escape `\\x` in a string"},
    {"[\"ok\", \"\\q\"]", "1:9: invalid escape `\\q` in a string"},
    {"\"\\'\"", "1:2: invalid escape `\\'` in a string"},
    {"\"\\U0041\"", "1:2: invalid escape `\\U` in a string"},
    {"\"\\\xC3\xA9\"", "1:2: invalid escape `\\\xC3\xA9` in a string"},
    {"\"\\\x01\"", "1:2: invalid escape: `\\` followed by U+0001"},
    {"\"\\\xFF\"", "1:3: invalid UTF-8 byte 0xff"},
    {"\"\\u12\"", "1:2: expected 4 hex digits after `\\u`"},
    {"\"\\u12", "1:2: expected 4 hex digits after `\\u`"},
    {"\"\\u00g0\"", "1:2: expected 4 hex digits after `\\u`"},
    {"\"\\u-123\"", "1:2: expected 4 hex digits after `\\u`"},
    // Surrogates: lone high, lone low, reversed, high then non-low.
    {"\"\\ud800\"", "1:2: unpaired UTF-16 surrogate `\\ud800` in a string"},
    {"\"x\\uDBFF", "1:3: unpaired UTF-16 surrogate `\\uDBFF` in a string"},
    {"\"\\udc00\"", "1:2: unpaired UTF-16 surrogate `\\udc00` in a string"},
    {"\"\\ude00\\ud83d\"", "1:2: unpaired UTF-16 surrogate `\\ude00` in a string"},
    {"\"\\ud83d\\u0041\"", "1:2: unpaired UTF-16 surrogate `\\ud83d` in a string"},
    {"\"\\ud83d\\ud83d\"", "1:2: unpaired UTF-16 surrogate `\\ud83d` in a string"},
    {"\"\\ud83d\\n\"", "1:2: unpaired UTF-16 surrogate `\\ud83d` in a string"},
    {"\"\\ud83dx\\ude00\"", "1:2: unpaired UTF-16 surrogate `\\ud83d` in a string"},
    {"\"ab\\ud83d\\ude00\\udc00\"", "1:16: unpaired UTF-16 surrogate `\\udc00` in a string"},
};
INSTANTIATE_TEST_SUITE_P(Strings, JsonErrorTest, testing::ValuesIn(kStringErrors));

const ErrorCase kUtf8Errors[] = {
    {"\"\xFF\"", "1:2: invalid UTF-8 byte 0xff"},
    {"\"\x80\"", "1:2: invalid UTF-8 byte 0x80"},                  // stray continuation
    {"\"\xC0\x80\"", "1:2: invalid UTF-8 byte 0xc0"},              // overlong NUL
    {"\"\xC1\xBF\"", "1:2: invalid UTF-8 byte 0xc1"},              // overlong
    {"\"\xE0\x80\x80\"", "1:2: invalid UTF-8 byte 0xe0"},          // overlong
    {"\"\xE0\x9F\xBF\"", "1:2: invalid UTF-8 byte 0xe0"},          // overlong
    {"\"\xED\xA0\x80\"", "1:2: invalid UTF-8 byte 0xed"},          // U+D800
    {"\"\xED\xBF\xBF\"", "1:2: invalid UTF-8 byte 0xed"},          // U+DFFF
    {"\"\xF0\x8F\xBF\xBF\"", "1:2: invalid UTF-8 byte 0xf0"},      // overlong
    {"\"\xF4\x90\x80\x80\"", "1:2: invalid UTF-8 byte 0xf4"},      // U+110000
    {"\"\xF5\x80\x80\x80\"", "1:2: invalid UTF-8 byte 0xf5"},
    {"\"\xC3\"", "1:2: invalid UTF-8 byte 0xc3"},                  // truncated
    {"\"\xE2\x82\"", "1:2: invalid UTF-8 byte 0xe2"},              // truncated
    {"\"\xF0\x9F\x98\"", "1:2: invalid UTF-8 byte 0xf0"},          // truncated
    {"\"\xC3", "1:2: invalid UTF-8 byte 0xc3"},                    // at end of input
    {"\"\xC3\xA9\xC3\xA9\xFE\"", "1:4: invalid UTF-8 byte 0xfe"},  // columns count scalars
    {"\"a\\n\xC3\xA9\xFE\"", "1:6: invalid UTF-8 byte 0xfe"},      // after an escape
    {"\xFF", "1:1: invalid UTF-8 byte 0xff"},
    {"[1, \xC3]", "1:5: invalid UTF-8 byte 0xc3"},
    {"{\"k\xC3\xA9\": 1, \"k\xE9\": 2}", "1:13: invalid UTF-8 byte 0xe9"},
    {"[\"\xC3\xA9\xC3\xA9\", x]", "1:8: expected a value"},
    {"\"\xEF\xBB\xBF\"\xEF", "1:4: invalid UTF-8 byte 0xef"},
};
INSTANTIATE_TEST_SUITE_P(Utf8, JsonErrorTest, testing::ValuesIn(kUtf8Errors));

TEST(JsonTest, EveryControlCharacterMustBeEscaped) {
  for (int c = 0; c < 0x20; ++c) {
    const std::string text = std::string("\"a") + static_cast<char>(c) + "\"";
    char expected[80];
    std::snprintf(expected, sizeof(expected),
                  "1:3: control character U+%04X must be escaped in a string", c);
    EXPECT_EQ(ErrorOf(text), expected);
    char escaped[16];
    std::snprintf(escaped, sizeof(escaped), "\"\\u%04x\"", c);
    EXPECT_EQ(ParseOk(escaped).root().as_string(), std::string(1, static_cast<char>(c)));
  }
}

TEST(JsonTest, ErrorsInLongStringsAreFoundAtEveryAlignment) {
  // The scanner looks at 8 bytes at a time; a bad byte may sit anywhere.
  for (size_t prefix = 0; prefix < 20; ++prefix) {
    const std::string a(prefix, 'a');
    EXPECT_EQ(ErrorOf("\"" + a + "\x01" + a + "\""),
              "1:" + std::to_string(prefix + 2) +
                  ": control character U+0001 must be escaped in a string");
    EXPECT_EQ(ErrorOf("\"" + a + "\xFF" + a + "\""),
              "1:" + std::to_string(prefix + 2) + ": invalid UTF-8 byte 0xff");
    EXPECT_EQ(ParseOk("\"" + a + "\\\"" + a + "\"").root().as_string(), a + "\"" + a);
    EXPECT_EQ(ParseOk("\"" + a + "\xC3\xA9" + a + "\"").root().as_string(),
              a + "\xC3\xA9" + a);
  }
}

std::string Nested(int depth, std::string_view inner = "1") {
  return std::string(static_cast<size_t>(depth), '[') + std::string(inner) +
         std::string(static_cast<size_t>(depth), ']');
}

TEST(JsonTest, DepthUpToTheLimitIsAccepted) {
  const std::string text = Nested(128);
  Document doc = ParseOk(text);
  const Value* v = &doc.root();
  for (int i = 0; i < 128; ++i) {
    ASSERT_TRUE(v->is_array());
    ASSERT_EQ(v->size(), 1u);
    v = &v->at(0);
  }
  EXPECT_EQ(v->as_int64(), 1);
  EXPECT_EQ(v->offset(), 128u);
}

TEST(JsonTest, DepthBeyondTheLimitIsAnError) {
  EXPECT_EQ(ErrorOf(Nested(129)), "1:129: nesting deeper than 128");
  ParseOptions options;
  options.max_depth = 3;
  EXPECT_EQ(ErrorOf(R"({"a": [{"b": 1}]})", options), "ok");
  EXPECT_EQ(ErrorOf(R"({"a": [{"b": []}]})", options), "1:14: nesting deeper than 3");
  EXPECT_EQ(ErrorOf("[[],[],[[]],[[[]]]]", options), "1:15: nesting deeper than 3");
  options.max_depth = 0;
  EXPECT_EQ(ErrorOf("1", options), "ok");
  EXPECT_EQ(ErrorOf("[]", options), "1:1: nesting deeper than 0");
  options.max_depth = -5;
  EXPECT_EQ(ErrorOf("{}", options), "1:1: nesting deeper than 0");
}

TEST(JsonTest, VeryDeepInputFailsWithoutRecursion) {
  ParseOptions options;
  options.max_depth = 1000000;
  const std::string deep = Nested(200000);
  Document doc = ParseOk(deep, options);
  size_t depth = 0;
  for (const Value* v = &doc.root(); v->is_array(); v = &v->at(0)) ++depth;
  EXPECT_EQ(depth, 200000u);
  EXPECT_EQ(ErrorOf(std::string(1000000, '[')), "1:129: nesting deeper than 128");
  std::string objects;
  for (int i = 0; i < 200; ++i) objects += "{\"a\":";
  EXPECT_EQ(ErrorOf(objects), "1:641: nesting deeper than 128");
}

TEST(JsonTest, MaxBytes) {
  ParseOptions options;
  options.max_bytes = 4;
  EXPECT_EQ(ErrorOf("[12]", options), "ok");
  EXPECT_EQ(ErrorOf("[123]", options), "1:1: input of 5 bytes exceeds the limit of 4 bytes");
}

TEST(JsonTest, LineCol) {
  const std::string_view text = "ab\n\xC3\xA9x\r\n\n\xF0\x9F\x98\x80y";
  EXPECT_EQ(LineCol(text, 0), "1:1");
  EXPECT_EQ(LineCol(text, 2), "1:3");
  EXPECT_EQ(LineCol(text, 3), "2:1");
  EXPECT_EQ(LineCol(text, 5), "2:2");  // after the two bytes of U+00E9
  EXPECT_EQ(LineCol(text, 6), "2:3");
  EXPECT_EQ(LineCol(text, 7), "2:4");  // the '\n' of "\r\n"
  EXPECT_EQ(LineCol(text, 8), "3:1");
  EXPECT_EQ(LineCol(text, 9), "4:1");
  EXPECT_EQ(LineCol(text, 13), "4:2");
  EXPECT_EQ(LineCol(text, 14), "4:3");
  EXPECT_EQ(LineCol(text, 1000), "4:3");
  EXPECT_EQ(LineCol("", 0), "1:1");
}

TEST(JsonTest, ErrorColumnsCountScalarValues) {
  EXPECT_EQ(ErrorOf("{\"\xE2\x82\xAC\xE2\x82\xAC\": 1,\n \"\xF0\x9F\x98\x80\": 2 3}"),
            "2:9: expected `,` or `}` after an object member");
  EXPECT_EQ(ErrorOf("\r\n[\t1\t,\t]"), "2:5: trailing comma before `]`");
}

TEST(JsonTest, AppendQuoted) {
  std::string out = "x=";
  AppendQuoted(&out, "plain");
  EXPECT_EQ(out, "x=\"plain\"");

  out.clear();
  AppendQuoted(&out, "q\"b\\s/\b\f\n\r\t\x01\x1F\x7F"sv);
  EXPECT_EQ(out, R"("q\"b\\s/\b\f\n\r\t\u0001\u001f)" "\x7F\"");

  out.clear();
  AppendQuoted(&out, "a\0b"sv);
  EXPECT_EQ(out, R"("a\u0000b")");

  out.clear();
  AppendQuoted(&out, "caf\xC3\xA9 \xF0\x9F\x98\x80");
  EXPECT_EQ(out, "\"caf\xC3\xA9 \xF0\x9F\x98\x80\"");

  out.clear();
  AppendQuoted(&out, "");
  EXPECT_EQ(out, "\"\"");

  // Bytes outside UTF-8 become U+FFFD, one for each byte.
  out.clear();
  AppendQuoted(&out, "a\xFF\xC3(\xED\xA0\x80");
  EXPECT_EQ(out, "\"a\xEF\xBF\xBD\xEF\xBF\xBD(\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
}

TEST(JsonTest, AppendQuotedRoundTrips) {
  std::string all;
  for (int c = 0; c < 0x80; ++c) all += static_cast<char>(c);
  all += "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xEF\xBB\xBF";
  std::string quoted;
  AppendQuoted(&quoted, all);
  EXPECT_EQ(ParseOk(quoted).root().as_string(), all);
}

}  // namespace
}  // namespace charter::internal::json
