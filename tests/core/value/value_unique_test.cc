// AppendUnique and HashValue: building a set keeps the first of each group
// of equal values, in order, and the hashed path (large inputs) gives the
// same result as comparing pairwise (issue 15: sets in entity JSON and set
// literals were quadratic).
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "value/value.h"

namespace charter::internal {
namespace {

// The pairwise reference.
std::vector<Value> Pairwise(const std::vector<Value>& in) {
  std::vector<Value> out;
  for (const Value& v : in) {
    bool dup = false;
    for (const Value& u : out) dup = dup || Equal(u, v);
    if (!dup) out.push_back(v);
  }
  return out;
}

std::vector<Value> Unique(std::vector<Value> in) {
  uint32_t n = AppendUnique(in.data(), 0, in.data(), static_cast<uint32_t>(in.size()));
  in.resize(n);
  return in;
}

void ExpectSame(const std::vector<Value>& a, const std::vector<Value>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(Equal(a[i], b[i])) << i;
}

TEST(AppendUnique, LargeSetsOfLongs) {
  std::vector<Value> in;
  for (int round = 0; round < 2; ++round) {
    for (int64_t i = 0; i < 100'000; ++i) in.push_back(Value::Long(i));
  }
  std::vector<Value> out = Unique(in);
  ASSERT_EQ(out.size(), 100'000u);
  for (int64_t i = 0; i < 100'000; ++i) EXPECT_EQ(out[i].i, i);
}

TEST(AppendUnique, HashedAgreesWithPairwise) {
  // Values of every kind that Equal can find equal across different
  // storage: strings, entity references (by type and id), records and sets
  // (sets in either order), longs and extension values of one number.
  std::vector<std::string> strings = {"a", "b", "c", "ab"};
  std::vector<EntityRef> refs;
  for (int i = 0; i < 8; ++i) refs.push_back(EntityRef{i % 2 ? "User" : "Team", i % 4 < 2 ? "x" : "y"});
  Value longs[3] = {Value::Long(1), Value::Long(2), Value::Long(3)};
  Value reversed[3] = {longs[2], longs[1], longs[0]};
  RecordField r1[2] = {{"k", Value::Long(1)}, {"s", Value::String("a")}};
  RecordField r2[2] = {{"k", Value::Long(1)}, {"s", Value::String("a")}};
  std::mt19937 rng(7);
  std::vector<Value> in;
  for (int i = 0; i < 3000; ++i) {
    switch (rng() % 8) {
      case 0: in.push_back(Value::Long(static_cast<int64_t>(rng() % 50))); break;
      case 1: in.push_back(Value::Ext(Type::kDecimal, static_cast<int64_t>(rng() % 50))); break;
      case 2: in.push_back(Value::String(strings[rng() % strings.size()])); break;
      case 3: in.push_back(Value::Entity(&refs[rng() % refs.size()])); break;
      case 4: in.push_back(Value::Set(rng() % 2 ? longs : reversed, 3)); break;
      case 5: in.push_back(Value::Record(rng() % 2 ? r1 : r2, 2)); break;
      case 6: in.push_back(Value::Bool(rng() % 2 == 0)); break;
      default: in.push_back(Value::Set(longs, static_cast<uint32_t>(rng() % 3))); break;
    }
  }
  ExpectSame(Unique(in), Pairwise(in));
  // Appending to a set that holds some already.
  std::vector<Value> base = Pairwise(std::vector<Value>(in.begin(), in.begin() + 100));
  std::vector<Value> elems = base;
  elems.resize(base.size() + in.size());
  uint32_t n = AppendUnique(elems.data(), static_cast<uint32_t>(base.size()), in.data(),
                            static_cast<uint32_t>(in.size()));
  elems.resize(n);
  std::vector<Value> all = base;
  all.insert(all.end(), in.begin(), in.end());
  ExpectSame(elems, Pairwise(all));
}

// SetHasEach (containsAll, containsAny and set equality): the hashed path
// (large sets) agrees with looking each value up pairwise, on sets of mixed
// values, and two sets of 200,000 longs compare in linear time.
TEST(SetHasEach, HashedAgreesWithPairwise) {
  std::vector<EntityRef> refs;
  for (int i = 0; i < 8; ++i) refs.push_back(EntityRef{i % 2 ? "User" : "Team", i % 4 < 2 ? "x" : "y"});
  Value longs[3] = {Value::Long(1), Value::Long(2), Value::Long(3)};
  Value reversed[3] = {longs[2], longs[1], longs[0]};
  std::mt19937 rng(11);
  auto random_value = [&]() {
    switch (rng() % 5) {
      case 0: return Value::Long(static_cast<int64_t>(rng() % 400));
      case 1: return Value::Ext(Type::kDecimal, static_cast<int64_t>(rng() % 400));
      case 2: return Value::Entity(&refs[rng() % refs.size()]);
      case 3: return Value::Set(rng() % 2 ? longs : reversed, 3);
      default: return Value::Set(longs, static_cast<uint32_t>(rng() % 3));
    }
  };
  for (int round = 0; round < 40; ++round) {
    std::vector<Value> set_elems;
    for (int i = 0; i < 300; ++i) set_elems.push_back(random_value());
    set_elems = Pairwise(set_elems);
    Value set = Value::Set(set_elems.data(), static_cast<uint32_t>(set_elems.size()));
    std::vector<Value> vs;
    for (int i = 0; i < round * 5; ++i) vs.push_back(random_value());
    bool all = true, any = false;
    for (const Value& v : vs) {
      bool has = false;
      for (const Value& u : set_elems) has = has || Equal(u, v);
      all = all && has;
      any = any || has;
    }
    uint32_t n = static_cast<uint32_t>(vs.size());
    EXPECT_EQ(SetHasEach(set, vs.data(), n, true), all) << round;
    EXPECT_EQ(SetHasEach(set, vs.data(), n, false), any) << round;
    // Every element of the set is in it, in any order.
    std::vector<Value> shuffled = set_elems;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    EXPECT_TRUE(SetHasEach(set, shuffled.data(), static_cast<uint32_t>(shuffled.size()), true));
    EXPECT_TRUE(Equal(set, Value::Set(shuffled.data(), static_cast<uint32_t>(shuffled.size()))));
  }
  std::vector<Value> up, down;
  for (int64_t i = 0; i < 200'000; ++i) {
    up.push_back(Value::Long(i));
    down.push_back(Value::Long(199'999 - i));
  }
  Value a = Value::Set(up.data(), 200'000), b = Value::Set(down.data(), 200'000);
  EXPECT_TRUE(Equal(a, b));
  EXPECT_TRUE(SetHasEach(a, down.data(), 200'000, true));
  down[0] = Value::Long(-1);
  EXPECT_FALSE(Equal(a, Value::Set(down.data(), 200'000)));
  EXPECT_FALSE(SetHasEach(a, down.data(), 200'000, true));
  EXPECT_TRUE(SetHasEach(a, down.data(), 200'000, false));
  EXPECT_FALSE(SetHasEach(a, down.data(), 1, false));
  EXPECT_TRUE(SetHasEach(a, down.data(), 0, true));
  EXPECT_FALSE(SetHasEach(a, down.data(), 0, false));
}

TEST(HashValue, EqualValuesHashAlike) {
  Value a[2] = {Value::Long(1), Value::String("x")};
  Value b[2] = {Value::String("x"), Value::Long(1)};
  EXPECT_EQ(HashValue(Value::Set(a, 2)), HashValue(Value::Set(b, 2)));
  EntityRef e1{"User", "alice"}, e2{"User", "alice", 3};
  EXPECT_EQ(HashValue(Value::Entity(&e1)), HashValue(Value::Entity(&e2)));
  EXPECT_NE(HashValue(Value::Long(1)), HashValue(Value::Ext(Type::kDecimal, 1)));
}

}  // namespace
}  // namespace charter::internal
