// Cedar's four extension types (ipaddr, decimal, datetime, duration): their
// constructors' string parsers, their operations and their printed forms,
// with exactly the semantics of Cedar 4.5 as cedar-policy 4.13 implements it.
//
// Everything here is a total function of its arguments: no input, however
// malformed or extreme, reaches undefined behaviour; every overflow is
// checked. Nothing throws or allocates on a success path except the Format*
// functions, which return a new string. A failing Parse* or operation leaves
// its output untouched and, when `error` is not null, stores a one-line
// lowercase message in *error.
//
// The acceptance rules, briefly (tests/core/extensions/extensions_test.cc checks
// each against cases recorded from Cedar itself):
//
//   ip("10.0.0.1")  ip("10.0.0.0/8")  ip("::1")  ip("2001:DB8::/32")
//     IPv4 is four decimal octets 0..255, each without a leading zero ("01"
//     is rejected). IPv6 is Rust's std::net grammar: up to eight groups of
//     1..4 hex digits (either case, leading zeros allowed), one `::` at most,
//     but no embedded IPv4 ("::ffff:1.2.3.4" is rejected), no zone (`%eth0`),
//     no brackets, no whitespace. An optional `/n` prefix has 1..2 digits for
//     IPv4 (n <= 32) or 1..3 digits for IPv6 (n <= 128) and no leading zero.
//     Host bits are kept: ip("10.0.0.1/24") != ip("10.0.0.0/24").
//
//   decimal("-12.3456")
//     `-`? digits `.` digits, 1..4 fractional digits, leading zeros allowed,
//     no `+`, no exponent; the value times 10^4 must fit in int64.
//
//   datetime("2024-02-29")  datetime("2024-02-29T23:59:59Z")
//   datetime("2024-02-29T23:59:59.999+0530")
//     `YYYY-MM-DD`, optionally followed by `Thh:mm:ss`, then `.SSS` (exactly
//     three digits) optionally, then `Z` or `+hhmm`/`-hhmm` (hh < 24,
//     mm < 60). Years 0000..9999 of the proleptic Gregorian calendar (0000
//     is a leap year); hours 00..23, no leap second; uppercase `T` and `Z`
//     only. Stored as milliseconds since 1970-01-01T00:00:00Z.
//
//   duration("1d2h3m4s5ms")  duration("-90m")  duration("0ms")
//     An optional `-`, then at least one of `<digits>d`, `<digits>h`,
//     `<digits>m`, `<digits>s`, `<digits>ms` in that order, each at most
//     once; the total in milliseconds must fit in int64 (so
//     "-9223372036854775808ms" is accepted, "9223372036854775808ms" is not).
#ifndef CHARTER_EXTENSIONS_EXTENSIONS_H_
#define CHARTER_EXTENSIONS_EXTENSIONS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace charter::internal::ext {

// ---------------------------------------------------------------- ipaddr

// An IP address with a prefix length. IPv4 uses bytes[0..3] (network order)
// and prefix 0..32; IPv6 uses bytes[0..15] and prefix 0..128. ParseIp always
// produces zero bytes beyond the address; the operations below read only the
// bytes of the address's version and treat a prefix beyond the maximum as the
// maximum, so any value of this struct is safe to pass.
struct IpAddr {
  bool v6 = false;
  uint8_t prefix = 32;
  uint8_t bytes[16] = {};
};

bool ParseIp(std::string_view s, IpAddr* out, std::string* error);

// Cedar's `==`: same version, same address bits (host bits included) and the
// same prefix length.
bool IpEqual(const IpAddr& a, const IpAddr& b);

bool IsIpv4(const IpAddr& a);
bool IsIpv6(const IpAddr& a);
// 127.0.0.0/8 with prefix >= 8, or exactly ::1 with prefix 128.
// (::ffff:127.0.0.1, the IPv4-mapped form, is not a loopback address.)
bool IsLoopback(const IpAddr& a);
// 224.0.0.0/4 with prefix >= 4, or ff00::/8 with prefix >= 8.
bool IsMulticast(const IpAddr& a);
// Whether the block a.network..a.broadcast lies within
// range.network..range.broadcast; false when the versions differ.
bool IsInRange(const IpAddr& a, const IpAddr& range);

// Cedar's printed form, "<address>/<prefix>" with the prefix always present:
// "10.0.0.1/32", "2001:db8::/32". IPv6 follows RFC 5952 as Rust prints it
// (lowercase, the longest run of two or more zero groups as `::`, the first
// such run on a tie), except that an IPv4-mapped address prints as
// "::ffff:1.2.3.4/128", which Cedar's own ip() then rejects.
std::string FormatIp(const IpAddr& a);

// ---------------------------------------------------------------- decimal

// A decimal is an int64 count of 10^-4 units: decimal("1.5") is 15000.
bool ParseDecimal(std::string_view s, int64_t* scaled_1e4, std::string* error);

// Cedar's printed form: always four fractional digits, "-1.5000", "0.0000".
std::string FormatDecimal(int64_t scaled_1e4);

// ------------------------------------------------------ datetime, duration

inline constexpr int64_t kMillisPerDay = 86'400'000;

// The proleptic Gregorian calendar, shared with every other reader of dates
// (Kubernetes' RFC 3339 times in kueue/): month m in 1..12.
bool IsLeapYear(int64_t y);
int DaysInMonth(int64_t y, int m);
// Days from 1970-01-01 to y-m-d (negative before it); exact for any |y|
// below 2^50.
int64_t DaysFromCivil(int64_t y, int m, int d);

bool ParseDatetime(std::string_view s, int64_t* ms_since_epoch, std::string* error);
bool ParseDuration(std::string_view s, int64_t* ms, std::string* error);

// A string datetime() reads back as the same instant, for every instant a
// datetime() string can produce, and the shortest such: "2024-01-01" at
// midnight UTC, "2024-01-01T10:20:30Z" on a whole second, otherwise
// "2024-01-01T10:20:30.456Z". The instants within 23:59 beyond years
// 0000..9999, which only an offset reaches, keep one:
// "9999-12-31T23:59:59.999-2359". Instants further out (reachable only
// through offset()) print with an ISO 8601 expanded year, such as
// "+10000-01-02" or "-0001-12-30T23:00:00Z", which datetime() rejects.
// (Cedar itself has no display form that depends only on the value; for a
// computed datetime it writes datetime("1970-01-01").offset(duration("<ms>ms")).)
std::string FormatDatetime(int64_t ms);
// Cedar's printed form: "<ms>ms", as in "-90000ms".
std::string FormatDuration(int64_t ms);

// datetime.offset(duration): datetime + duration, failing on overflow.
bool Offset(int64_t datetime_ms, int64_t duration_ms, int64_t* out, std::string* error);
// a.durationSince(b): a - b, failing on overflow.
bool DurationSince(int64_t a_ms, int64_t b_ms, int64_t* out, std::string* error);
// datetime.toDate(): midnight UTC of the day holding the instant (rounding
// toward negative infinity). Fails only within a day of INT64_MIN.
bool ToDate(int64_t datetime_ms, int64_t* out, std::string* error);
// datetime.toTime(): the duration since that midnight, in [0, kMillisPerDay).
// Never fails; the signature matches the other operations.
bool ToTime(int64_t datetime_ms, int64_t* out, std::string* error);

// duration.toX(): whole units, truncating toward zero (toDays of -1ms is 0).
int64_t ToDays(int64_t ms);
int64_t ToHours(int64_t ms);
int64_t ToMinutes(int64_t ms);
int64_t ToSeconds(int64_t ms);
int64_t ToMilliseconds(int64_t ms);

}  // namespace charter::internal::ext

#endif  // CHARTER_EXTENSIONS_EXTENSIONS_H_
