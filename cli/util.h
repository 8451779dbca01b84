// Small helpers every command uses: string concatenation over
// std::string_view and the status macros. The engine has its own copies
// under engine/src/common/; the CLI reads the public API only, so these are
// its own.
#ifndef CHARTER_CLI_UTIL_H_
#define CHARTER_CLI_UTIL_H_

#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace charter::cli {

// Debian's abseil has its own absl::string_view, which absl::StrCat takes
// and std::string_view is not; Cat converts on the way in.
template <typename T>
const T& ForCat(const T& v) {
  return v;
}
inline absl::string_view ForCat(std::string_view s) { return absl::string_view(s.data(), s.size()); }

template <typename... Args>
std::string Cat(const Args&... args) {
  return absl::StrCat(ForCat(args)...);
}

template <typename... Args>
void CatAppend(std::string* out, const Args&... args) {
  absl::StrAppend(out, ForCat(args)...);
}

}  // namespace charter::cli

#define CHARTER_CLI_CONCAT_INNER_(a, b) a##b
#define CHARTER_CLI_CONCAT_(a, b) CHARTER_CLI_CONCAT_INNER_(a, b)

#define RETURN_IF_ERROR(expr)                           \
  do {                                                  \
    ::absl::Status charter_status_ = (expr);            \
    if (!charter_status_.ok()) return charter_status_;  \
  } while (0)

#define ASSIGN_OR_RETURN(lhs, expr) \
  CHARTER_CLI_ASSIGN_OR_RETURN_(CHARTER_CLI_CONCAT_(charter_statusor_, __LINE__), lhs, expr)

#define CHARTER_CLI_ASSIGN_OR_RETURN_(statusor, lhs, expr) \
  auto statusor = (expr);                                  \
  if (!statusor.ok()) return statusor.status();            \
  lhs = std::move(statusor).value()

#endif  // CHARTER_CLI_UTIL_H_
