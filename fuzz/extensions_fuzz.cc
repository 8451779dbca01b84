// libFuzzer target for Cedar's extension types (extensions/extensions.h). The
// input goes whole to every parser, and also split at its first newline into
// two strings for the two-argument operations; its first 16 bytes, read as two
// int64s, drive the datetime and duration operations at any value. Whatever
// parses goes through every operation and formatter, and these invariants
// must hold:
//   - a failing parser or operation sets a message and leaves its output be;
//   - printing then parsing gives the value back (for ip, except IPv4-mapped
//     IPv6 addresses, which Cedar prints in a form it rejects; for datetime,
//     within the instants a datetime string can produce);
//   - every value is in range of itself, ToDate <= x < ToDate + 1 day,
//     0 <= ToTime < 1 day, and the operations agree with exact arithmetic.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "extensions/extensions.h"

namespace {

namespace ext = charter::internal::ext;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "extensions_fuzz invariant failed: %s\n", what);
    std::abort();
  }
}

constexpr int64_t kFirstStringMs = -62'167'219'200'000 - 86'340'000;
constexpr int64_t kLastStringMs = 253'402'300'799'999 + 86'340'000;

bool IsMapped(const ext::IpAddr& a) {
  static constexpr uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
  return a.v6 && std::memcmp(a.bytes, kPrefix, 12) == 0;
}

void ExerciseIp(const ext::IpAddr& a) {
  Check(ext::IsIpv4(a) != ext::IsIpv6(a), "one version");
  Check(ext::IpEqual(a, a), "ip == itself");
  Check(ext::IsInRange(a, a), "ip in range of itself");
  ext::IpAddr all;
  std::string error;
  Check(ext::ParseIp(a.v6 ? "::/0" : "0.0.0.0/0", &all, &error), "parse the whole space");
  Check(ext::IsInRange(a, all), "ip in the whole space");
  (void)ext::IsLoopback(a);
  (void)ext::IsMulticast(a);
  std::string text = ext::FormatIp(a);
  ext::IpAddr back;
  bool ok = ext::ParseIp(text, &back, &error);
  Check(ok != IsMapped(a), "FormatIp parses back unless IPv4-mapped");
  if (ok) Check(ext::IpEqual(a, back), "FormatIp round trip");
}

void ExerciseDatetime(int64_t ms) {
  std::string text = ext::FormatDatetime(ms);
  int64_t back = 0;
  std::string error;
  bool ok = ext::ParseDatetime(text, &back, &error);
  bool reachable = ms >= kFirstStringMs && ms <= kLastStringMs;
  Check(ok == reachable, "FormatDatetime parses back exactly when a string can name the instant");
  if (ok) Check(back == ms, "FormatDatetime round trip");
  int64_t date = 0, time = -1;
  if (ext::ToDate(ms, &date, &error)) {
    Check(date <= ms && ms - date < ext::kMillisPerDay && date % ext::kMillisPerDay == 0, "ToDate");
  } else {
    Check(!error.empty(), "ToDate error");
    Check(ms < INT64_MIN + ext::kMillisPerDay, "ToDate fails only next to INT64_MIN");
  }
  Check(ext::ToTime(ms, &time, &error), "ToTime never fails");
  Check(time >= 0 && time < ext::kMillisPerDay, "ToTime range");
  int64_t since = 0;
  if (ext::DurationSince(ms, 0, &since, nullptr)) Check(since == ms, "durationSince epoch");
}

void ExerciseDuration(int64_t ms) {
  std::string text = ext::FormatDuration(ms);
  int64_t back = 0;
  Check(ext::ParseDuration(text, &back, nullptr) && back == ms, "FormatDuration round trip");
  Check(ext::ToMilliseconds(ms) == ms, "toMilliseconds");
  Check(ext::ToSeconds(ms) == ms / 1000, "toSeconds");
  Check(ext::ToMinutes(ms) == ext::ToSeconds(ms) / 60, "toMinutes");
  Check(ext::ToHours(ms) == ext::ToMinutes(ms) / 60, "toHours");
  Check(ext::ToDays(ms) == ext::ToHours(ms) / 24, "toDays");
}

void ExercisePair(int64_t a, int64_t b) {
  ExerciseDatetime(a);
  ExerciseDuration(b);
  bool sum_fits = b >= 0 ? a <= INT64_MAX - b : a >= INT64_MIN - b;
  bool diff_fits = b >= 0 ? a >= INT64_MIN + b : a <= INT64_MAX + b;
  int64_t out = 0x5A5A;
  std::string error;
  bool ok = ext::Offset(a, b, &out, &error);
  Check(ok == sum_fits, "Offset overflow");
  Check(ok ? out - b == a : (out == 0x5A5A && !error.empty()), "Offset value");
  out = 0x5A5A;
  error.clear();
  ok = ext::DurationSince(a, b, &out, &error);
  Check(ok == diff_fits, "DurationSince overflow");
  Check(ok ? out + b == a : (out == 0x5A5A && !error.empty()), "DurationSince value");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view s(reinterpret_cast<const char*>(data), size);
  std::string error;

  ext::IpAddr ip;
  const ext::IpAddr untouched_ip;
  ext::IpAddr ip_out = untouched_ip;
  if (ext::ParseIp(s, &ip_out, &error)) {
    ip = ip_out;
    ExerciseIp(ip);
  } else {
    Check(!error.empty() && ext::IpEqual(ip_out, untouched_ip), "ParseIp failure");
  }

  int64_t v = 0x5A5A;
  error.clear();
  if (ext::ParseDecimal(s, &v, &error)) {
    int64_t back = 0;
    Check(ext::ParseDecimal(ext::FormatDecimal(v), &back, nullptr) && back == v, "FormatDecimal round trip");
  } else {
    Check(!error.empty() && v == 0x5A5A, "ParseDecimal failure");
  }

  v = 0x5A5A;
  error.clear();
  int64_t datetime = 0;
  bool have_datetime = ext::ParseDatetime(s, &v, &error);
  if (have_datetime) {
    datetime = v;
    Check(datetime >= kFirstStringMs && datetime <= kLastStringMs, "datetime in range");
    ExerciseDatetime(datetime);
  } else {
    Check(!error.empty() && v == 0x5A5A, "ParseDatetime failure");
  }

  v = 0x5A5A;
  error.clear();
  if (ext::ParseDuration(s, &v, &error)) {
    ExerciseDuration(v);
    if (have_datetime) ExercisePair(datetime, v);
  } else {
    Check(!error.empty() && v == 0x5A5A, "ParseDuration failure");
  }

  // Two strings: "<a>\n<b>".
  size_t nl = s.find('\n');
  if (nl != std::string_view::npos) {
    std::string_view a = s.substr(0, nl), b = s.substr(nl + 1);
    ext::IpAddr ia, ib;
    if (ext::ParseIp(a, &ia, nullptr) && ext::ParseIp(b, &ib, nullptr)) {
      bool eq = ext::IpEqual(ia, ib);
      Check(eq == ext::IpEqual(ib, ia), "== is symmetric");
      bool ab = ext::IsInRange(ia, ib), ba = ext::IsInRange(ib, ia);
      if (eq) Check(ab && ba, "equal ips are in range of each other");
      if (ab || ba) Check(ia.v6 == ib.v6, "isInRange across versions is false");
    }
    int64_t da = 0, db = 0;
    if (ext::ParseDatetime(a, &da, nullptr) && ext::ParseDatetime(b, &db, nullptr)) ExercisePair(da, db);
    if (ext::ParseDatetime(a, &da, nullptr) && ext::ParseDuration(b, &db, nullptr)) ExercisePair(da, db);
  }

  // Raw values, for the operations at int64's edges.
  if (size >= 16) {
    int64_t a, b;
    std::memcpy(&a, data, 8);
    std::memcpy(&b, data + 8, 8);
    ExercisePair(a, b);
    ExercisePair(b, a);
    (void)ext::FormatDecimal(a);
    ext::IpAddr raw;
    std::memcpy(raw.bytes, data, 16);
    raw.v6 = (data[0] & 1) != 0;
    raw.prefix = data[15];
    (void)ext::FormatIp(raw);
    (void)ext::IsLoopback(raw);
    (void)ext::IsMulticast(raw);
    Check(ext::IsInRange(raw, raw), "any struct is in range of itself");
  }
  return 0;
}
