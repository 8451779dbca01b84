// The builtin registry (builtins/builtins.def): its rows are consistent, every
// implementation is safe on values of any type, and docs/language.md's table
// of functions and methods is the registry row for row.
#include "builtins/builtins.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/arena.h"
#include "common/strings.h"
#include "gtest/gtest.h"

namespace charter::internal {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string_view StyleName(CallStyle s) {
  switch (s) {
    case CallStyle::kMethod: return "method";
    case CallStyle::kFunction: return "function";
    case CallStyle::kInternal: return "internal";
  }
  return "?";
}

std::string_view CostName(BuiltinCost c) {
  switch (c) {
    case BuiltinCost::kConstant: return "constant";
    case BuiltinCost::kLogarithmic: return "logarithmic";
    case BuiltinCost::kLinear: return "linear";
    case BuiltinCost::kProduct: return "product";
  }
  return "?";
}

TEST(Registry, RowsAreConsistent) {
  for (uint32_t i = 0; i < kNumBuiltins; ++i) {
    const BuiltinInfo& info = kBuiltins[i];
    SCOPED_TRACE(std::string(info.name));
    EXPECT_GE(info.arity, 1u);
    EXPECT_LE(info.arity, kMaxBuiltinArity);
    EXPECT_NE(kBuiltinFns[i], nullptr);
    if (info.style == CallStyle::kInternal) {
      EXPECT_EQ(FindBuiltin(info.name, CallStyle::kMethod), -1);
      EXPECT_EQ(FindBuiltin(info.name, CallStyle::kFunction), -1);
      continue;
    }
    EXPECT_EQ(FindBuiltin(info.name, info.style), static_cast<int>(i));
    // Cedar's rule: its built-in methods check their arity when parsing, the
    // extension functions when they are called.
    EXPECT_EQ(info.wrong_arity == WrongArity::kEvaluation, IsExtensionFunction(info));
    // An extension constructor is a function of one string.
    if (info.style == CallStyle::kFunction) {
      EXPECT_EQ(info.arity, 1u);
      EXPECT_EQ(info.params[0], ParamType::kString);
    }
  }
  EXPECT_EQ(FindBuiltin("arityError", CallStyle::kInternal), -1);
  EXPECT_EQ(FindBuiltin("nope", CallStyle::kMethod), -1);
}

TEST(Registry, WrongArityMessageIsCedars) {
  EXPECT_EQ(WrongArityMessage(InfoOf(Builtin::kDecimal), 2),
            "wrong number of arguments provided to extension function `decimal`: expected 1, got 2");
  EXPECT_EQ(WrongArityMessage(InfoOf(Builtin::kIsInRange), 1),
            "wrong number of arguments provided to extension function `isInRange`: expected 2, got 1");
}

TEST(Registry, ArityErrorFailsWithItsMessage) {
  Arena arena;
  CallContext ctx{nullptr, &arena};
  Value arg = Value::String("the message");
  Value out;
  std::string error;
  EXPECT_FALSE(CallBuiltin(Builtin::kArityError, &arg, ctx, &out, &error));
  EXPECT_EQ(error, "the message");
}

// Every builtin but the tag methods (which need an entity store) on every
// pair of values of different types: an answer or an error, never a crash.
TEST(Registry, ImplementationsCheckTheirArguments) {
  Arena arena;
  std::vector<Value> samples = {
      Value::Bool(true), Value::Long(7), Value::String("1.5"), Value::String("10.0.0.1"),
      Value::Set(nullptr, 0), Value::Record(nullptr, 0), Value::Ext(Type::kDecimal, 15000),
      Value::Ext(Type::kDatetime, 0), Value::Ext(Type::kDuration, 1000),
  };
  CallContext ctx{nullptr, &arena};
  Value ip;
  std::string error;
  ASSERT_TRUE(CallBuiltin(Builtin::kIp, &samples[3], ctx, &ip, &error)) << error;
  samples.push_back(ip);
  for (uint32_t i = 0; i < kNumBuiltins; ++i) {
    if (kBuiltins[i].family == BuiltinFamily::kTag) continue;
    for (const Value& a : samples) {
      for (const Value& b : samples) {
        Value args[2] = {a, b};
        Value out;
        error.clear();
        bool ok = kBuiltinFns[i](args, ctx, &out, &error);
        EXPECT_EQ(ok, error.empty()) << kBuiltins[i].name << ": " << error;
      }
    }
  }
}

// docs/language.md's "Every function and method" table is the registry (its
// rows that a policy can name), in order.
TEST(Registry, LanguageDocTableIsTheRegistry) {
  std::string doc = ReadText("docs/language.md");
  size_t at = doc.find("## Every function and method");
  ASSERT_NE(at, std::string::npos) << "docs/language.md lacks its table of functions and methods";
  size_t end = doc.find("\n## ", at + 1);
  std::istringstream section(doc.substr(at, end == std::string::npos ? std::string::npos : end - at));
  // Rows `| `name` | style | params | `result` | cost | ... error |`, as
  // "name style params -> result cost parse|evaluation".
  std::vector<std::string> rows;
  for (std::string line; std::getline(section, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    for (size_t p = 2; p < line.size();) {
      size_t q = line.find(" |", p);
      if (q == std::string::npos) break;
      cells.push_back(line.substr(p, q - p));
      p = q + 3;
    }
    ASSERT_EQ(cells.size(), 6u) << line;
    auto unquote = [](const std::string& c) { return c.size() > 2 ? c.substr(1, c.size() - 2) : c; };
    std::string wrong = cells[5].substr(0, cells[5].find(' '));
    rows.push_back(Cat(unquote(cells[0]), " ", cells[1], " ", cells[2], " -> ", unquote(cells[3]), " ",
                       cells[4], " ", wrong));
  }
  std::vector<std::string> want;
  for (const BuiltinInfo& info : kBuiltins) {
    if (info.style == CallStyle::kInternal) continue;
    std::string ps;
    for (uint32_t k = 0; k < info.arity; ++k) {
      if (k > 0) ps += ", ";
      CatAppend(&ps, "`", ParamTypeName(info.params[k]), "`");
    }
    want.push_back(Cat(info.name, " ", StyleName(info.style), " ", ps, " -> ",
                       ParamTypeName(info.result), " ", CostName(info.cost), " ",
                       info.wrong_arity == WrongArity::kParse ? "parse" : "evaluation"));
  }
  EXPECT_EQ(rows, want) << "docs/language.md's table of functions and methods differs from builtins.def";
}

}  // namespace
}  // namespace charter::internal
