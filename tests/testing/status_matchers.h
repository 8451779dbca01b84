// GoogleMock matchers for absl::Status and absl::StatusOr<T>, written once for
// every test (as cel-cpp and abseil keep theirs):
//
//   EXPECT_THAT(store.Save(path), IsOk());
//   ASSERT_THAT(bundle, IsOk());                        // a StatusOr<Bundle>
//   EXPECT_THAT(Compile(bad), StatusIs(absl::StatusCode::kInvalidArgument));
//   EXPECT_THAT(Load(big), StatusIs(absl::StatusCode::kResourceExhausted,
//                                   HasSubstr("max_input_bytes")));
//   EXPECT_THAT(ParseInt("42"), IsOkAndHolds(42));
//
// Each works on a Status and on a StatusOr<T> (IsOkAndHolds on a StatusOr
// only), and a failure prints the status it saw (code and message), and for
// IsOkAndHolds what the value matcher said of the value.
#ifndef CHARTER_TESTS_TESTING_STATUS_MATCHERS_H_
#define CHARTER_TESTS_TESTING_STATUS_MATCHERS_H_

#include <ostream>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace charter_testing {
namespace internal_status {

inline const absl::Status& GetStatus(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

// The matched type as written in a Matcher<...>, without const and &.
template <typename T>
using Bare = std::remove_cv_t<std::remove_reference_t<T>>;

// IsOk(): for any T that GetStatus takes.
template <typename T>
class IsOkImpl : public ::testing::MatcherInterface<T> {
 public:
  bool MatchAndExplain(T actual, ::testing::MatchResultListener* listener) const override {
    const absl::Status& status = GetStatus(actual);
    if (!status.ok()) *listener << "which has status " << status;
    return status.ok();
  }
  void DescribeTo(std::ostream* os) const override { *os << "is OK"; }
  void DescribeNegationTo(std::ostream* os) const override { *os << "is not OK"; }
};

class IsOkMatcher {
 public:
  template <typename T>
  operator ::testing::Matcher<T>() const {  // NOLINT: implicit, as gMock's own
    return ::testing::Matcher<T>(new IsOkImpl<T>());
  }
};

// StatusIs(code, message): the code equals and the message matches.
template <typename T>
class StatusIsImpl : public ::testing::MatcherInterface<T> {
 public:
  StatusIsImpl(absl::StatusCode code, ::testing::Matcher<const std::string&> message)
      : code_(code), message_(std::move(message)) {}
  bool MatchAndExplain(T actual, ::testing::MatchResultListener* listener) const override {
    const absl::Status& status = GetStatus(actual);
    *listener << "which has status " << status;
    if (status.code() != code_) return false;
    ::testing::StringMatchResultListener message_listener;
    std::string message(status.message());
    if (!message_.MatchAndExplain(message, &message_listener)) {
      *listener << ", whose message does not match";
      if (!message_listener.str().empty()) *listener << ", " << message_listener.str();
      return false;
    }
    return true;
  }
  void DescribeTo(std::ostream* os) const override {
    *os << "has status code " << absl::StatusCodeToString(code_) << " and a message that ";
    message_.DescribeTo(os);
  }
  void DescribeNegationTo(std::ostream* os) const override {
    *os << "has a status code other than " << absl::StatusCodeToString(code_)
        << " or a message that ";
    message_.DescribeNegationTo(os);
  }

 private:
  absl::StatusCode code_;
  ::testing::Matcher<const std::string&> message_;
};

class StatusIsMatcher {
 public:
  StatusIsMatcher(absl::StatusCode code, ::testing::Matcher<const std::string&> message)
      : code_(code), message_(std::move(message)) {}
  template <typename T>
  operator ::testing::Matcher<T>() const {  // NOLINT: implicit, as gMock's own
    return ::testing::Matcher<T>(new StatusIsImpl<T>(code_, message_));
  }

 private:
  absl::StatusCode code_;
  ::testing::Matcher<const std::string&> message_;
};

// IsOkAndHolds(m): a StatusOr<V> that is OK and whose value matches m.
template <typename T, typename ValueMatcher>
class IsOkAndHoldsImpl : public ::testing::MatcherInterface<T> {
 public:
  using Value = typename Bare<T>::value_type;
  explicit IsOkAndHoldsImpl(const ValueMatcher& value)
      : value_(::testing::SafeMatcherCast<const Value&>(value)) {}
  bool MatchAndExplain(T actual, ::testing::MatchResultListener* listener) const override {
    if (!actual.ok()) {
      *listener << "which has status " << actual.status();
      return false;
    }
    ::testing::StringMatchResultListener value_listener;
    bool matches = value_.MatchAndExplain(*actual, &value_listener);
    *listener << "which is OK and holds " << ::testing::PrintToString(*actual);
    if (!value_listener.str().empty()) *listener << ", " << value_listener.str();
    return matches;
  }
  void DescribeTo(std::ostream* os) const override {
    *os << "is OK and holds a value that ";
    value_.DescribeTo(os);
  }
  void DescribeNegationTo(std::ostream* os) const override {
    *os << "is not OK or holds a value that ";
    value_.DescribeNegationTo(os);
  }

 private:
  ::testing::Matcher<const Value&> value_;
};

template <typename ValueMatcher>
class IsOkAndHoldsMatcher {
 public:
  explicit IsOkAndHoldsMatcher(ValueMatcher value) : value_(std::move(value)) {}
  template <typename T>
  operator ::testing::Matcher<T>() const {  // NOLINT: implicit, as gMock's own
    return ::testing::Matcher<T>(new IsOkAndHoldsImpl<T, ValueMatcher>(value_));
  }

 private:
  ValueMatcher value_;
};

}  // namespace internal_status

// The status is OK.
inline internal_status::IsOkMatcher IsOk() { return {}; }

// The status has `code`, and its message matches `message` (a string is
// matched for equality; use testing::HasSubstr for part of it).
inline internal_status::StatusIsMatcher StatusIs(absl::StatusCode code,
                                                 ::testing::Matcher<const std::string&> message) {
  return {code, std::move(message)};
}
inline internal_status::StatusIsMatcher StatusIs(absl::StatusCode code) {
  return {code, ::testing::A<const std::string&>()};
}

// The StatusOr is OK and its value matches `value` (a value is matched for
// equality).
template <typename ValueMatcher>
internal_status::IsOkAndHoldsMatcher<ValueMatcher> IsOkAndHolds(ValueMatcher value) {
  return internal_status::IsOkAndHoldsMatcher<ValueMatcher>(std::move(value));
}

}  // namespace charter_testing

#endif  // CHARTER_TESTS_TESTING_STATUS_MATCHERS_H_
