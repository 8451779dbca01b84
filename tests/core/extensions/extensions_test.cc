// Tests for Cedar's extension types (extensions/extensions.h). Most cases come
// from extension_cases.inc, Cedar's own answers recorded from cedar-wasm 4.13
// by oracle_check.js; the hand-written tests below name the rules that
// surprise, and check what Cedar cannot show us (the printed forms).

#include "extensions/extensions.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace charter::internal::ext {
namespace {

using namespace std::string_view_literals;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// ------------------------------------------------- the recorded Cedar cases

// The literal's bytes, embedded NULs included.
#define SV(s) std::string_view(s, sizeof(s) - 1)

// extension_cases.inc expands each kind of case that is not defined to
// nothing, and undefines them all at its end.

struct IpCase {
  std::string_view input;
  bool ok;
  bool v6;
  int prefix;
  std::string_view hex;
  bool loopback;
  bool multicast;
};
#define IP_CASE(in, ok, v6, prefix, hex, lb, mc) {SV(in), ok, v6, prefix, hex, lb, mc},
const IpCase kIpCases[] = {
#include "tests/core/extensions/extension_cases.inc"
};

struct IpPairCase {
  std::string_view a, b;
  bool in_range;
  bool equal;
};
#define IP_PAIR_CASE(a, b, r, e) {SV(a), SV(b), r, e},
const IpPairCase kIpPairCases[] = {
#include "tests/core/extensions/extension_cases.inc"
};

struct ValueCase {
  std::string_view input;
  bool ok;
  int64_t value;
};
#define DECIMAL_CASE(in, ok, v) {SV(in), ok, v},
const ValueCase kDecimalCases[] = {
#include "tests/core/extensions/extension_cases.inc"
};

#define DATETIME_CASE(in, ok, v) {SV(in), ok, v},
const ValueCase kDatetimeCases[] = {
#include "tests/core/extensions/extension_cases.inc"
};

#define DURATION_CASE(in, ok, v) {SV(in), ok, v},
const ValueCase kDurationCases[] = {
#include "tests/core/extensions/extension_cases.inc"
};

enum class Op { Offset, DurationSince, ToDate, ToTime };
struct OpCase {
  Op op;
  int64_t a, b;
  bool ok;
  int64_t result;
};
#define OP_CASE(op, a, b, ok, r) {Op::op, a, b, ok, r},
const OpCase kOpCases[] = {
#include "tests/core/extensions/extension_cases.inc"
};

struct UnitsCase {
  int64_t ms, days, hours, minutes, seconds, millis;
};
#define UNITS_CASE(ms, d, h, m, s, x) {ms, d, h, m, s, x},
const UnitsCase kUnitsCases[] = {
#include "tests/core/extensions/extension_cases.inc"
};
#undef SV

std::string Hex(const IpAddr& a) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < (a.v6 ? 16 : 4); ++i) {
    out.push_back(kDigits[a.bytes[i] >> 4]);
    out.push_back(kDigits[a.bytes[i] & 0xF]);
  }
  return out;
}

IpAddr Ip(std::string_view s) {
  IpAddr a;
  std::string error;
  EXPECT_TRUE(ParseIp(s, &a, &error)) << s << ": " << error;
  return a;
}

TEST(ExtensionCasesTest, TableIsComplete) {
  // A truncated or regenerated-by-mistake table should not pass quietly.
  EXPECT_GE(std::size(kIpCases), 400u);
  EXPECT_GE(std::size(kIpPairCases), 1000u);
  EXPECT_GE(std::size(kDecimalCases), 150u);
  EXPECT_GE(std::size(kDatetimeCases), 250u);
  EXPECT_GE(std::size(kDurationCases), 200u);
  EXPECT_GE(std::size(kOpCases), 3000u);
  EXPECT_GE(std::size(kUnitsCases), 50u);
}

TEST(ExtensionCasesTest, IpAgreesWithCedar) {
  for (const IpCase& c : kIpCases) {
    SCOPED_TRACE(testing::Message() << "ip(\"" << c.input << "\")");
    IpAddr a;
    std::string error;
    bool ok = ParseIp(c.input, &a, &error);
    ASSERT_EQ(ok, c.ok) << error;
    if (!ok) {
      EXPECT_FALSE(error.empty());
      continue;
    }
    EXPECT_EQ(a.v6, c.v6);
    EXPECT_EQ(IsIpv6(a), c.v6);
    EXPECT_EQ(IsIpv4(a), !c.v6);
    EXPECT_EQ(a.prefix, c.prefix);
    EXPECT_EQ(Hex(a), c.hex);
    EXPECT_EQ(IsLoopback(a), c.loopback);
    EXPECT_EQ(IsMulticast(a), c.multicast);
  }
}

TEST(ExtensionCasesTest, IpPairsAgreeWithCedar) {
  for (const IpPairCase& c : kIpPairCases) {
    SCOPED_TRACE(testing::Message() << "ip(\"" << c.a << "\") vs ip(\"" << c.b << "\")");
    IpAddr a = Ip(c.a), b = Ip(c.b);
    EXPECT_EQ(IsInRange(a, b), c.in_range);
    EXPECT_EQ(IpEqual(a, b), c.equal);
  }
}

void CheckValueCases(const ValueCase* begin, const ValueCase* end, const char* name,
                     bool (*parse)(std::string_view, int64_t*, std::string*)) {
  for (const ValueCase* c = begin; c != end; ++c) {
    SCOPED_TRACE(testing::Message() << name << "(\"" << c->input << "\")");
    int64_t v = 12345;
    std::string error;
    bool ok = parse(c->input, &v, &error);
    ASSERT_EQ(ok, c->ok) << error;
    if (ok) {
      EXPECT_EQ(v, c->value);
    } else {
      EXPECT_EQ(v, 12345) << "the output must be left alone on failure";
      EXPECT_FALSE(error.empty());
    }
  }
}

TEST(ExtensionCasesTest, DecimalAgreesWithCedar) {
  CheckValueCases(std::begin(kDecimalCases), std::end(kDecimalCases), "decimal", ParseDecimal);
}

TEST(ExtensionCasesTest, DatetimeAgreesWithCedar) {
  CheckValueCases(std::begin(kDatetimeCases), std::end(kDatetimeCases), "datetime", ParseDatetime);
}

TEST(ExtensionCasesTest, DurationAgreesWithCedar) {
  CheckValueCases(std::begin(kDurationCases), std::end(kDurationCases), "duration", ParseDuration);
}

TEST(ExtensionCasesTest, OperationsAgreeWithCedar) {
  for (const OpCase& c : kOpCases) {
    SCOPED_TRACE(testing::Message() << static_cast<int>(c.op) << " a=" << c.a << " b=" << c.b);
    int64_t out = 777;
    std::string error;
    bool ok = false;
    switch (c.op) {
      case Op::Offset: ok = Offset(c.a, c.b, &out, &error); break;
      case Op::DurationSince: ok = DurationSince(c.a, c.b, &out, &error); break;
      case Op::ToDate: ok = ToDate(c.a, &out, &error); break;
      case Op::ToTime: ok = ToTime(c.a, &out, &error); break;
    }
    ASSERT_EQ(ok, c.ok) << error;
    if (ok) {
      EXPECT_EQ(out, c.result);
    } else {
      EXPECT_EQ(out, 777);
      EXPECT_FALSE(error.empty());
    }
  }
}

TEST(ExtensionCasesTest, DurationUnitsAgreeWithCedar) {
  for (const UnitsCase& c : kUnitsCases) {
    SCOPED_TRACE(c.ms);
    EXPECT_EQ(ToDays(c.ms), c.days);
    EXPECT_EQ(ToHours(c.ms), c.hours);
    EXPECT_EQ(ToMinutes(c.ms), c.minutes);
    EXPECT_EQ(ToSeconds(c.ms), c.seconds);
    EXPECT_EQ(ToMilliseconds(c.ms), c.millis);
  }
}

// Printing then parsing gives the value back, for every accepted case, except
// for IPv4-mapped IPv6 addresses, which Cedar prints in a form it rejects.
TEST(ExtensionCasesTest, FormattedValuesParseBack) {
  for (const IpCase& c : kIpCases) {
    if (!c.ok) continue;
    IpAddr a = Ip(c.input);
    std::string text = FormatIp(a);
    IpAddr b;
    bool mapped = c.v6 && c.hex.substr(0, 24) == "00000000000000000000ffff";
    EXPECT_EQ(ParseIp(text, &b, nullptr), !mapped) << c.input << " -> " << text;
    if (!mapped) {
      EXPECT_TRUE(IpEqual(a, b)) << c.input << " -> " << text;
    }
  }
  for (const ValueCase& c : kDecimalCases) {
    if (!c.ok) continue;
    int64_t v = 0;
    ASSERT_TRUE(ParseDecimal(FormatDecimal(c.value), &v, nullptr)) << FormatDecimal(c.value);
    EXPECT_EQ(v, c.value);
  }
  for (const ValueCase& c : kDatetimeCases) {
    if (!c.ok) continue;
    int64_t v = 0;
    ASSERT_TRUE(ParseDatetime(FormatDatetime(c.value), &v, nullptr)) << FormatDatetime(c.value);
    EXPECT_EQ(v, c.value);
  }
  for (const ValueCase& c : kDurationCases) {
    if (!c.ok) continue;
    int64_t v = 0;
    ASSERT_TRUE(ParseDuration(FormatDuration(c.value), &v, nullptr)) << FormatDuration(c.value);
    EXPECT_EQ(v, c.value);
  }
}

// ------------------------------------------------ the rules that surprise

bool IpOk(std::string_view s) {
  IpAddr a;
  return ParseIp(s, &a, nullptr);
}

TEST(IpTest, Ipv4IsStrictDottedDecimal) {
  EXPECT_TRUE(IpOk("0.0.0.0"));
  EXPECT_TRUE(IpOk("255.255.255.255"));
  EXPECT_FALSE(IpOk("01.2.3.4"));    // a leading zero (octal-looking) octet
  EXPECT_FALSE(IpOk("1.2.3.00"));
  EXPECT_FALSE(IpOk("256.0.0.0"));
  EXPECT_FALSE(IpOk("1.2.3"));       // no short forms
  EXPECT_FALSE(IpOk("0x1.2.3.4"));
  EXPECT_FALSE(IpOk(" 1.2.3.4"));    // no whitespace anywhere
  EXPECT_FALSE(IpOk("1.2.3.4\n"));
}

TEST(IpTest, Ipv6FollowsRustWithoutEmbeddedIpv4) {
  EXPECT_TRUE(IpOk("::"));
  EXPECT_TRUE(IpOk("FfFf::1"));                 // either case
  EXPECT_TRUE(IpOk("0000::"));                  // leading zeros up to four digits
  EXPECT_FALSE(IpOk("00000::"));
  EXPECT_TRUE(IpOk("1:2:3:4:5:6:7::"));         // `::` may stand for one group
  EXPECT_FALSE(IpOk("1:2:3:4:5:6:7:8::"));
  EXPECT_FALSE(IpOk("1::2::3"));
  EXPECT_FALSE(IpOk("::ffff:1.2.3.4"));         // embedded IPv4 is refused...
  EXPECT_FALSE(IpOk("1:2:3:4:5:6:1.2.3.4"));
  EXPECT_TRUE(IpOk("::ffff:102:304"));          // ...but the same address in hex is fine
  EXPECT_FALSE(IpOk("fe80::1%eth0"));           // no zone
  EXPECT_FALSE(IpOk("[::1]"));
}

TEST(IpTest, Prefixes) {
  EXPECT_EQ(Ip("10.1.2.3").prefix, 32);
  EXPECT_EQ(Ip("::1").prefix, 128);
  EXPECT_EQ(Ip("10.1.2.3/0").prefix, 0);
  EXPECT_FALSE(IpOk("10.1.2.3/33"));
  EXPECT_FALSE(IpOk("10.1.2.3/024"));  // no leading zero...
  EXPECT_FALSE(IpOk("::1/0128"));
  EXPECT_FALSE(IpOk("10.1.2.3/00"));   // ...not even "00"
  EXPECT_FALSE(IpOk("10.1.2.3/"));
  EXPECT_FALSE(IpOk("10.1.2.3/+8"));
  EXPECT_FALSE(IpOk("::1/129"));
}

TEST(IpTest, HostBitsAreKept) {
  EXPECT_FALSE(IpEqual(Ip("10.0.0.1/24"), Ip("10.0.0.0/24")));
  EXPECT_TRUE(IpEqual(Ip("10.0.0.1"), Ip("10.0.0.1/32")));
  EXPECT_FALSE(IpEqual(Ip("10.0.0.1/32"), Ip("10.0.0.1/31")));
  EXPECT_TRUE(IpEqual(Ip("::1"), Ip("0:0:0:0:0:0:0:1/128")));
  EXPECT_FALSE(IpEqual(Ip("::ffff:102:304"), Ip("1.2.3.4")));  // versions differ
  // Both name the block 10.0.0.0/24, so each is in range of the other.
  EXPECT_TRUE(IsInRange(Ip("10.0.0.1/24"), Ip("10.0.0.0/24")));
  EXPECT_TRUE(IsInRange(Ip("10.0.0.0/24"), Ip("10.0.0.1/24")));
}

TEST(IpTest, PredicatesLookAtThePrefix) {
  EXPECT_TRUE(IsLoopback(Ip("127.9.9.9/8")));
  EXPECT_FALSE(IsLoopback(Ip("127.0.0.1/7")));
  EXPECT_FALSE(IsLoopback(Ip("::1/127")));
  EXPECT_FALSE(IsLoopback(Ip("::ffff:7f00:1")));  // IPv4-mapped 127.0.0.1
  EXPECT_TRUE(IsMulticast(Ip("239.1.1.1/4")));
  EXPECT_FALSE(IsMulticast(Ip("224.0.0.0/3")));
  EXPECT_TRUE(IsMulticast(Ip("ff02::1/8")));
  EXPECT_FALSE(IsMulticast(Ip("ff00::/7")));
  EXPECT_FALSE(IsInRange(Ip("::ffff:102:304"), Ip("0.0.0.0/0")));
  EXPECT_TRUE(IsInRange(Ip("0.0.0.0/0"), Ip("0.0.0.0/0")));
  EXPECT_FALSE(IsInRange(Ip("0.0.0.0/0"), Ip("10.0.0.0/8")));
}

TEST(IpTest, FormatIsRustsDisplayWithThePrefix) {
  EXPECT_EQ(FormatIp(Ip("10.0.0.1")), "10.0.0.1/32");
  EXPECT_EQ(FormatIp(Ip("10.0.0.1/8")), "10.0.0.1/8");
  EXPECT_EQ(FormatIp(Ip("::")), "::/128");
  EXPECT_EQ(FormatIp(Ip("::1")), "::1/128");
  EXPECT_EQ(FormatIp(Ip("1::")), "1::/128");
  EXPECT_EQ(FormatIp(Ip("2001:0DB8:0000:0000:0000:0000:0000:0001/64")), "2001:db8::1/64");
  EXPECT_EQ(FormatIp(Ip("1:0:0:1:0:0:0:1")), "1:0:0:1::1/128");   // the longest run
  EXPECT_EQ(FormatIp(Ip("1:0:0:1:0:0:1:1")), "1::1:0:0:1:1/128");  // the first of equals
  EXPECT_EQ(FormatIp(Ip("1:0:1:0:1:0:1:0")), "1:0:1:0:1:0:1:0/128");  // no run of one
  EXPECT_EQ(FormatIp(Ip("1:2:3:4:5:6:7:8")), "1:2:3:4:5:6:7:8/128");
  EXPECT_EQ(FormatIp(Ip("::ffff:102:304")), "::ffff:1.2.3.4/128");
  EXPECT_EQ(FormatIp(Ip("::ffff:0:0")), "::ffff:0.0.0.0/128");
  EXPECT_EQ(FormatIp(Ip("::fffe:102:304")), "::fffe:102:304/128");
  EXPECT_EQ(FormatIp(Ip("::102:304")), "::102:304/128");  // not IPv4-compatible any more
}

TEST(IpTest, AnyStructIsSafe) {
  IpAddr odd;
  odd.v6 = false;
  odd.prefix = 200;  // beyond the maximum: treated as 32
  odd.bytes[0] = 127;
  odd.bytes[5] = 9;  // ignored for IPv4
  EXPECT_TRUE(IsLoopback(odd));
  EXPECT_TRUE(IsInRange(odd, Ip("127.0.0.0/8")));
  IpAddr same = odd;
  same.bytes[5] = 0;
  EXPECT_TRUE(IpEqual(odd, same));
  EXPECT_EQ(FormatIp(odd), "127.0.0.0/200");
}

int64_t Dec(std::string_view s) {
  int64_t v = 0;
  std::string error;
  EXPECT_TRUE(ParseDecimal(s, &v, &error)) << s << ": " << error;
  return v;
}

bool DecOk(std::string_view s) {
  int64_t v;
  return ParseDecimal(s, &v, nullptr);
}

TEST(DecimalTest, Rules) {
  EXPECT_EQ(Dec("-0.0"), 0);
  EXPECT_EQ(Dec("-0.5"), -5000);
  EXPECT_EQ(Dec("00012.3400"), 123400);
  EXPECT_EQ(Dec("922337203685477.5807"), kMax);
  EXPECT_EQ(Dec("-922337203685477.5808"), kMin);
  EXPECT_FALSE(DecOk("922337203685477.5808"));
  EXPECT_FALSE(DecOk("+1.0"));
  EXPECT_FALSE(DecOk("1.23456"));
  EXPECT_FALSE(DecOk("1.00000"));  // digits count, not value
  EXPECT_FALSE(DecOk("1."));
  EXPECT_FALSE(DecOk(".5"));
  EXPECT_FALSE(DecOk("1"));
  EXPECT_FALSE(DecOk("1e3"));
  EXPECT_FALSE(DecOk("\xD9\xA1.0"));  // ARABIC-INDIC DIGIT ONE
}

TEST(DecimalTest, Format) {
  EXPECT_EQ(FormatDecimal(0), "0.0000");
  EXPECT_EQ(FormatDecimal(15000), "1.5000");
  EXPECT_EQ(FormatDecimal(-1), "-0.0001");
  EXPECT_EQ(FormatDecimal(kMax), "922337203685477.5807");
  EXPECT_EQ(FormatDecimal(kMin), "-922337203685477.5808");
}

int64_t Dt(std::string_view s) {
  int64_t v = 0;
  std::string error;
  EXPECT_TRUE(ParseDatetime(s, &v, &error)) << s << ": " << error;
  return v;
}

bool DtOk(std::string_view s) {
  int64_t v;
  return ParseDatetime(s, &v, nullptr);
}

TEST(DatetimeTest, Rules) {
  EXPECT_EQ(Dt("1970-01-01"), 0);
  EXPECT_EQ(Dt("1970-01-01T00:00:00.001Z"), 1);
  EXPECT_EQ(Dt("1970-01-01T01:00:00+0100"), 0);     // +hhmm: local time ahead of UTC
  EXPECT_EQ(Dt("0000-01-01"), -62167219200000);     // year 0 exists
  EXPECT_TRUE(DtOk("0000-02-29"));                  // and is a leap year
  EXPECT_TRUE(DtOk("2000-02-29"));
  EXPECT_FALSE(DtOk("1900-02-29"));
  EXPECT_FALSE(DtOk("2024-01-01T24:00:00Z"));
  EXPECT_FALSE(DtOk("2016-12-31T23:59:60Z"));       // no leap second
  EXPECT_FALSE(DtOk("2024-01-01T00:00:00"));        // a zone is required after a time
  EXPECT_FALSE(DtOk("2024-01-01T00:00:00z"));
  EXPECT_FALSE(DtOk("2024-01-01T00:00:00+2400"));
  EXPECT_TRUE(DtOk("2024-01-01T00:00:00-2359"));
  EXPECT_FALSE(DtOk("2024-01-01T00:00:00+01:00"));
  EXPECT_FALSE(DtOk("2024-01-01T00:00:00.12Z"));    // exactly three fractional digits
  EXPECT_FALSE(DtOk("2024-01-01T00:00Z"));
  EXPECT_FALSE(DtOk("2024-01-01Z"));
  EXPECT_FALSE(DtOk("+2024-01-01"));
  EXPECT_EQ(Dt("9999-12-31T23:59:59.999-2359"), 253402300799999 + 86340000);
  EXPECT_EQ(Dt("0000-01-01T00:00:00+2359"), -62167219200000 - 86340000);
}

TEST(DatetimeTest, Format) {
  EXPECT_EQ(FormatDatetime(0), "1970-01-01");
  EXPECT_EQ(FormatDatetime(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatDatetime(1000), "1970-01-01T00:00:01Z");
  EXPECT_EQ(FormatDatetime(Dt("2024-02-29T12:34:56.789Z")), "2024-02-29T12:34:56.789Z");
  EXPECT_EQ(FormatDatetime(-62167219200000), "0000-01-01");
  EXPECT_EQ(FormatDatetime(253402300799999), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatDatetime(253402300800000), "9999-12-31T23:59:00-0001");
  EXPECT_EQ(FormatDatetime(Dt("9999-12-31T23:59:59.999-2359")), "9999-12-31T23:59:59.999-2359");
  EXPECT_EQ(FormatDatetime(Dt("0000-01-01T00:00:00+2359")), "0000-01-01T00:00:00+2359");
  EXPECT_EQ(FormatDatetime(-62167219200000 - 1), "0000-01-01T00:00:59.999+0001");
  EXPECT_EQ(FormatDatetime(253402300800000 + kMillisPerDay), "+10000-01-02");
  EXPECT_EQ(FormatDatetime(-62167219200000 - kMillisPerDay - 3600000), "-0001-12-30T23:00:00Z");
  EXPECT_EQ(FormatDatetime(kMax), "+292278994-08-17T07:12:55.807Z");
  EXPECT_EQ(FormatDatetime(kMin), "-292275055-05-16T16:47:04.192Z");
}

// Every instant a datetime string can name prints as a string naming it; the
// instants just beyond print as strings datetime() rejects.
TEST(DatetimeTest, FormatRoundTripsAtTheEdges) {
  constexpr int64_t kFirst = -62167219200000 - 86340000;  // 0000-01-01T00:00:00+2359
  constexpr int64_t kLast = 253402300799999 + 86340000;   // 9999-12-31T23:59:59.999-2359
  for (int64_t edge : {kFirst, kLast, int64_t{0}}) {
    for (int64_t d = -90'000'000; d <= 90'000'000; d += 7'919) {
      for (int64_t ms : {edge + d, edge + d % 3}) {
        int64_t back = 0;
        bool ok = ParseDatetime(FormatDatetime(ms), &back, nullptr);
        ASSERT_EQ(ok, ms >= kFirst && ms <= kLast) << ms << " " << FormatDatetime(ms);
        if (ok) {
          ASSERT_EQ(back, ms) << FormatDatetime(ms);
        }
      }
    }
  }
}

int64_t Dur(std::string_view s) {
  int64_t v = 0;
  std::string error;
  EXPECT_TRUE(ParseDuration(s, &v, &error)) << s << ": " << error;
  return v;
}

bool DurOk(std::string_view s) {
  int64_t v;
  return ParseDuration(s, &v, nullptr);
}

TEST(DurationTest, Rules) {
  EXPECT_EQ(Dur("0ms"), 0);
  EXPECT_EQ(Dur("-0d"), 0);
  EXPECT_EQ(Dur("1d2h3m4s5ms"), 93784005);
  EXPECT_EQ(Dur("-1d2h"), -93600000);  // the sign applies to every part
  EXPECT_EQ(Dur("1m1ms"), 60001);
  EXPECT_EQ(Dur("0000000000000000000000001ms"), 1);
  EXPECT_FALSE(DurOk(""));
  EXPECT_FALSE(DurOk("-"));
  EXPECT_FALSE(DurOk("0"));        // a unit is required
  EXPECT_FALSE(DurOk("1d2d"));
  EXPECT_FALSE(DurOk("1h1d"));
  EXPECT_FALSE(DurOk("--1d"));
  EXPECT_FALSE(DurOk("+1d"));
  EXPECT_FALSE(DurOk("1D"));
  EXPECT_FALSE(DurOk("1.5h"));
  EXPECT_EQ(Dur("9223372036854775807ms"), kMax);
  EXPECT_FALSE(DurOk("9223372036854775808ms"));
  EXPECT_EQ(Dur("-9223372036854775808ms"), kMin);  // one more on the negative side
  EXPECT_EQ(Dur("106751991167d"), 106751991167 * kMillisPerDay);
  EXPECT_FALSE(DurOk("106751991168d"));
  EXPECT_EQ(Dur("106751991167d7h12m55s807ms"), kMax);
  EXPECT_EQ(Dur("-106751991167d7h12m55s808ms"), kMin);
}

TEST(DurationTest, UnitsTruncateTowardZero) {
  EXPECT_EQ(ToDays(-1), 0);
  EXPECT_EQ(ToDays(-kMillisPerDay - 1), -1);
  EXPECT_EQ(ToHours(-3600001), -1);
  EXPECT_EQ(ToSeconds(kMin), -9223372036854775);
  EXPECT_EQ(ToDays(kMax), 106751991167);
  EXPECT_EQ(FormatDuration(kMin), "-9223372036854775808ms");
  EXPECT_EQ(FormatDuration(0), "0ms");
}

TEST(DatetimeTest, Operations) {
  int64_t out = 0;
  std::string error;
  EXPECT_TRUE(Offset(kMax, 0, &out, &error));
  EXPECT_FALSE(Offset(kMax, 1, &out, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(Offset(kMin, -1, &out, nullptr));
  EXPECT_FALSE(DurationSince(0, kMin, &out, nullptr));
  EXPECT_TRUE(DurationSince(-1, kMin, &out, nullptr));
  EXPECT_EQ(out, kMax);
  // toDate rounds toward negative infinity and fails only next to INT64_MIN.
  EXPECT_TRUE(ToDate(-1, &out, nullptr));
  EXPECT_EQ(out, -kMillisPerDay);
  EXPECT_TRUE(ToDate(kMax, &out, nullptr));
  EXPECT_FALSE(ToDate(kMin, &out, nullptr));
  EXPECT_TRUE(ToDate(kMin - kMin % kMillisPerDay, &out, nullptr));  // the first whole day
  EXPECT_TRUE(ToTime(-1, &out, nullptr));
  EXPECT_EQ(out, kMillisPerDay - 1);
  EXPECT_TRUE(ToTime(kMin, &out, nullptr));
  EXPECT_GE(out, 0);
}

TEST(ErrorsTest, MessagesAreShortAndQuoteTheInput) {
  std::string error;
  IpAddr a;
  EXPECT_FALSE(ParseIp("1.2.3", &a, &error));
  EXPECT_EQ(error, "invalid IP address `1.2.3`");
  int64_t v;
  EXPECT_FALSE(ParseDecimal("1.23456", &v, &error));
  EXPECT_EQ(error, "invalid decimal `1.23456`: more than 4 digits after the `.`");
  EXPECT_FALSE(ParseDatetime("2023-02-29", &v, &error));
  EXPECT_EQ(error, "invalid datetime `2023-02-29`: no such date");
  EXPECT_FALSE(ParseDuration("9223372036854775808ms", &v, &error));
  EXPECT_EQ(error.substr(0, 34), "duration `9223372036854775808ms` i");
  std::string long_input(1000, '9');
  EXPECT_FALSE(ParseDuration(long_input, &v, &error));
  EXPECT_LT(error.size(), 200u);
  EXPECT_NE(error.find("...`"), std::string::npos);
}

}  // namespace
}  // namespace charter::internal::ext
