// The Status matchers of status_matchers.h: each one matching, and not
// matching, on a Status and on a StatusOr, and what a failure says.
#include "testing/status_matchers.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::IsOkAndHolds;
using ::charter_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::Eq;
using ::testing::HasSubstr;
using ::testing::Not;

const absl::Status kOk = absl::OkStatus();
const absl::Status kBad = absl::InvalidArgumentError("bad bundle: truncated");
const absl::StatusOr<int> kFortyTwo = 42;
const absl::StatusOr<int> kMissing = absl::NotFoundError("no such policy `p`");

// What a matcher says of a value it does not match ("" when it matches).
template <typename T, typename M>
std::string Explain(const M& matcher, const T& value) {
  ::testing::Matcher<const T&> m = matcher;
  ::testing::StringMatchResultListener listener;
  if (m.MatchAndExplain(value, &listener)) return "";
  return listener.str();
}

template <typename T, typename M>
std::string Describe(const M& matcher) {
  ::testing::Matcher<const T&> m = matcher;
  return ::testing::DescribeMatcher<const T&>(m);
}

TEST(IsOk, Status) {
  EXPECT_THAT(kOk, IsOk());
  EXPECT_THAT(kBad, Not(IsOk()));
  EXPECT_EQ(Explain(IsOk(), kBad), "which has status INVALID_ARGUMENT: bad bundle: truncated");
  EXPECT_EQ(Describe<absl::Status>(IsOk()), "is OK");
}

TEST(IsOk, StatusOr) {
  EXPECT_THAT(kFortyTwo, IsOk());
  EXPECT_THAT(kMissing, Not(IsOk()));
  EXPECT_EQ(Explain(IsOk(), kMissing), "which has status NOT_FOUND: no such policy `p`");
}

TEST(StatusIs, CodeAlone) {
  EXPECT_THAT(kBad, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(kBad, Not(StatusIs(absl::StatusCode::kNotFound)));
  EXPECT_THAT(kOk, StatusIs(absl::StatusCode::kOk));
  EXPECT_THAT(kOk, Not(StatusIs(absl::StatusCode::kInvalidArgument)));
  EXPECT_THAT(kMissing, StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(kFortyTwo, Not(StatusIs(absl::StatusCode::kNotFound)));
  EXPECT_EQ(Explain(StatusIs(absl::StatusCode::kNotFound), kBad),
            "which has status INVALID_ARGUMENT: bad bundle: truncated");
}

TEST(StatusIs, CodeAndMessage) {
  EXPECT_THAT(kBad, StatusIs(absl::StatusCode::kInvalidArgument, "bad bundle: truncated"));
  EXPECT_THAT(kBad, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("truncated")));
  EXPECT_THAT(kBad, Not(StatusIs(absl::StatusCode::kInvalidArgument, "bad bundle")));
  EXPECT_THAT(kBad, Not(StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("too large"))));
  // The right message under the wrong code does not match either.
  EXPECT_THAT(kBad, Not(StatusIs(absl::StatusCode::kNotFound, HasSubstr("truncated"))));
  EXPECT_THAT(kMissing, StatusIs(absl::StatusCode::kNotFound, HasSubstr("`p`")));
  EXPECT_THAT(kMissing, Not(StatusIs(absl::StatusCode::kNotFound, HasSubstr("`q`"))));
  EXPECT_EQ(Explain(StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("too large")), kBad),
            "which has status INVALID_ARGUMENT: bad bundle: truncated, whose message does not match");
  EXPECT_EQ(Describe<absl::Status>(StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("x"))),
            "has status code INVALID_ARGUMENT and a message that has substring \"x\"");
}

TEST(IsOkAndHolds, ValueAndMatcher) {
  EXPECT_THAT(kFortyTwo, IsOkAndHolds(42));
  EXPECT_THAT(kFortyTwo, IsOkAndHolds(Eq(42)));
  EXPECT_THAT(kFortyTwo, Not(IsOkAndHolds(41)));
  EXPECT_THAT(kMissing, Not(IsOkAndHolds(42)));
  EXPECT_THAT(kMissing, Not(IsOkAndHolds(::testing::_)));
  absl::StatusOr<std::vector<std::string>> ids = std::vector<std::string>{"a", "b"};
  EXPECT_THAT(ids, IsOkAndHolds(ElementsAre("a", "b")));
  EXPECT_THAT(ids, Not(IsOkAndHolds(ElementsAre("b", "a"))));
  EXPECT_EQ(Explain(IsOkAndHolds(42), kMissing), "which has status NOT_FOUND: no such policy `p`");
  EXPECT_EQ(Explain(IsOkAndHolds(41), kFortyTwo), "which is OK and holds 42");
  EXPECT_EQ(Describe<absl::StatusOr<int>>(IsOkAndHolds(42)), "is OK and holds a value that is equal to 42");
}

// The matchers in the assertions the tests use, failing: the failure message
// names the status.
TEST(StatusMatchers, FailuresPrintTheStatus) {
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    EXPECT_THAT(kBad, IsOk());
    EXPECT_THAT(kMissing, IsOkAndHolds(42));
    EXPECT_THAT(kBad, StatusIs(absl::StatusCode::kNotFound));
  }
  ASSERT_EQ(failures.size(), 3);
  EXPECT_THAT(failures.GetTestPartResult(0).message(), HasSubstr("INVALID_ARGUMENT: bad bundle: truncated"));
  EXPECT_THAT(failures.GetTestPartResult(1).message(), HasSubstr("NOT_FOUND: no such policy `p`"));
  EXPECT_THAT(failures.GetTestPartResult(2).message(), HasSubstr("Expected: has status code NOT_FOUND"));
}

}  // namespace
}  // namespace charter
