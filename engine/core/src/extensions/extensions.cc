// Cedar's extension types: parsers, operations and printed forms. The rules
// are summarised in extensions.h; the comments here say where Cedar's
// implementation (Rust's std::net parsers, the regexes in cedar-policy-core's
// extensions/*.rs, chrono's calendar) decides a case.
#include "extensions/extensions.h"

#include <cstring>

namespace charter::internal::ext {
namespace {

constexpr uint64_t kInt64MaxMagnitude = 9'223'372'036'854'775'807ULL;     // INT64_MAX
constexpr uint64_t kInt64MinMagnitude = 9'223'372'036'854'775'808ULL;     // -INT64_MIN
constexpr int64_t kInt64Min = -9'223'372'036'854'775'807LL - 1;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Appends `v` in decimal, left-padded with zeros to at least `width` digits.
void AppendUnsigned(std::string* out, uint64_t v, int width = 1) {
  char buf[20];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (int i = n; i < width; ++i) out->push_back('0');
  while (n > 0) out->push_back(buf[--n]);
}

void AppendSigned(std::string* out, int64_t v) {
  if (v < 0) {
    out->push_back('-');
    // INVARIANT: negating in uint64 is defined for INT64_MIN too.
    AppendUnsigned(out, 0 - static_cast<uint64_t>(v));
  } else {
    AppendUnsigned(out, static_cast<uint64_t>(v));
  }
}

void AppendHex(std::string* out, unsigned v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  bool started = false;
  for (int shift = 12; shift >= 0; shift -= 4) {
    unsigned d = (v >> shift) & 0xF;
    if (d != 0 || started || shift == 0) {
      out->push_back(kDigits[d]);
      started = true;
    }
  }
}

// The input as it appears in an error message: in backticks, cut after 64
// bytes (on a UTF-8 character boundary) so that messages stay one short line.
std::string Quoted(std::string_view s) {
  constexpr size_t kMax = 64;
  std::string out = "`";
  if (s.size() <= kMax) {
    out.append(s);
  } else {
    size_t cut = kMax;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    out.append(s.substr(0, cut));
    out.append("...");
  }
  out.push_back('`');
  return out;
}

void SetError(std::string* error, std::string message) {
  if (error != nullptr) *error = std::move(message);
}

// ---------------------------------------------------------------- ipaddr

constexpr uint8_t kMaxPrefixV4 = 32;
constexpr uint8_t kMaxPrefixV6 = 128;
// Cedar refuses longer strings outright; no accepted string is longer anyway
// (eight groups of four digits, seven colons and "/128").
constexpr size_t kMaxIpLength = 43;

// Rust's Ipv4Addr grammar: exactly four decimal octets separated by `.`,
// each 1..3 digits, at most 255, and no leading zero ("0" itself is fine).
bool ParseIpv4(std::string_view s, uint8_t* out) {
  size_t i = 0;
  for (int group = 0; group < 4; ++group) {
    if (group > 0) {
      if (i >= s.size() || s[i] != '.') return false;
      ++i;
    }
    size_t start = i;
    unsigned value = 0;
    while (i < s.size() && IsDigit(s[i])) {
      if (i - start == 3) return false;
      value = value * 10 + static_cast<unsigned>(s[i] - '0');
      ++i;
    }
    if (i == start) return false;
    if (s[start] == '0' && i - start > 1) return false;
    if (value > 255) return false;
    out[group] = static_cast<uint8_t>(value);
  }
  return i == s.size();
}

// Reads up to `limit` colon-separated groups of 1..4 hex digits from s[*pos],
// the first without a leading colon, as Rust's Ipv6Addr parser does: a group
// that does not parse (including its colon) is left unread. Returns how many
// groups were read.
int ReadHexGroups(std::string_view s, size_t* pos, uint16_t* groups, int limit) {
  for (int i = 0; i < limit; ++i) {
    size_t p = *pos;
    if (i > 0) {
      if (p >= s.size() || s[p] != ':') return i;
      ++p;
    }
    size_t start = p;
    unsigned value = 0;
    while (p < s.size() && HexValue(s[p]) >= 0) {
      if (p - start == 4) return i;
      value = value * 16 + static_cast<unsigned>(HexValue(s[p]));
      ++p;
    }
    if (p == start) return i;
    groups[i] = static_cast<uint16_t>(value);
    *pos = p;
  }
  return limit;
}

// Rust's Ipv6Addr grammar without the trailing embedded IPv4 form, which
// Cedar rejects before parsing (see ParseIp).
bool ParseIpv6(std::string_view s, uint8_t* out) {
  uint16_t groups[8] = {};
  size_t pos = 0;
  int head = ReadHexGroups(s, &pos, groups, 8);
  if (head < 8) {
    if (pos + 1 >= s.size() || s[pos] != ':' || s[pos + 1] != ':') return false;
    pos += 2;
    // `::` stands for at least one zero group.
    uint16_t tail[7] = {};
    int n = ReadHexGroups(s, &pos, tail, 7 - head);
    for (int i = 0; i < n; ++i) groups[8 - n + i] = tail[i];
  }
  if (pos != s.size()) return false;
  for (int i = 0; i < 8; ++i) {
    out[2 * i] = static_cast<uint8_t>(groups[i] >> 8);
    out[2 * i + 1] = static_cast<uint8_t>(groups[i] & 0xFF);
  }
  return true;
}

// Cedar's prefix rule: only ASCII digits, at most 2 (IPv4) or 3 (IPv6) of
// them, not empty, no leading zero unless the prefix is "0", at most `max`.
bool ParsePrefix(std::string_view s, uint8_t max, size_t max_len, uint8_t* out) {
  if (s.empty() || s.size() > max_len) return false;
  unsigned value = 0;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (s[0] == '0' && s.size() > 1) return false;
  if (value > max) return false;
  *out = static_cast<uint8_t>(value);
  return true;
}

bool AtLeastTwo(std::string_view s, char c) {
  size_t first = s.find(c);
  return first != std::string_view::npos && s.find(c, first + 1) != std::string_view::npos;
}

int AddressBytes(const IpAddr& a) { return a.v6 ? 16 : 4; }

uint8_t ClampedPrefix(const IpAddr& a) {
  uint8_t max = a.v6 ? kMaxPrefixV6 : kMaxPrefixV4;
  return a.prefix > max ? max : a.prefix;
}

// The network mask's byte `i` for a prefix of `prefix` bits.
uint8_t MaskByte(int i, unsigned prefix) {
  unsigned bits_before = static_cast<unsigned>(i) * 8;
  if (prefix >= bits_before + 8) return 0xFF;
  if (prefix <= bits_before) return 0x00;
  return static_cast<uint8_t>(0xFF << (8 - (prefix - bits_before)));
}

// ---------------------------------------------------------------- datetime

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace

bool IsLeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t y, int m) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}


// Counts in 400-year cycles of 146097 days that start on March 1st (so that
// the leap day ends a year).
int64_t DaysFromCivil(int64_t y, int m, int d) {
  int64_t year = m <= 2 ? y - 1 : y;
  int64_t cycle = FloorDiv(year, 400);
  int64_t year_of_cycle = year - cycle * 400;                            // [0, 399]
  int64_t month_from_march = m > 2 ? m - 3 : m + 9;                      // [0, 11]
  int64_t day_of_year = (153 * month_from_march + 2) / 5 + (d - 1);      // [0, 365]
  int64_t day_of_cycle =
      year_of_cycle * 365 + year_of_cycle / 4 - year_of_cycle / 100 + day_of_year;
  return cycle * 146097 + day_of_cycle - 719468;  // 719468: 0000-03-01 to 1970-01-01
}

namespace {

struct CivilDate {
  int64_t year;
  int month;
  int day;
};

// The inverse of DaysFromCivil; exact for every int64 `days` that an int64
// count of milliseconds can produce.
CivilDate CivilFromDays(int64_t days) {
  int64_t z = days + 719468;
  int64_t cycle = FloorDiv(z, 146097);
  int64_t day_of_cycle = z - cycle * 146097;  // [0, 146096]
  int64_t year_of_cycle =
      (day_of_cycle - day_of_cycle / 1460 + day_of_cycle / 36524 - day_of_cycle / 146096) / 365;
  int64_t day_of_year =
      day_of_cycle - (365 * year_of_cycle + year_of_cycle / 4 - year_of_cycle / 100);
  int64_t mp = (5 * day_of_year + 2) / 153;  // month from March, [0, 11]
  int day = static_cast<int>(day_of_year - (153 * mp + 2) / 5 + 1);
  int month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  int64_t year = year_of_cycle + cycle * 400 + (month <= 2 ? 1 : 0);
  return {year, month, day};
}

// Reads exactly `n` ASCII digits at s[pos].
bool FixedDigits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (!IsDigit(s[i])) return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

// "invalid <what> `s`: why" (without ": why" when `why` is empty), into
// *error when it is not null; returns false, for `return Invalid(...)`.
bool Invalid(std::string* error, std::string_view what, std::string_view s, std::string_view why) {
  if (error == nullptr) return false;
  std::string m = "invalid ";
  m += what;
  m += ' ';
  m += Quoted(s);
  if (!why.empty()) {
    m += ": ";
    m += why;
  }
  *error = std::move(m);
  return false;
}

std::string DatetimeError(std::string_view s, std::string_view why) {
  std::string m;
  Invalid(&m, "datetime", s, why);
  return m;
}

// Skips a leading `-` at s[*i]; returns whether there was one.
bool TakeMinus(std::string_view s, size_t* i) {
  if (*i >= s.size() || s[*i] != '-') return false;
  ++*i;
  return true;
}

}  // namespace

// ---------------------------------------------------------------- ipaddr

bool ParseIp(std::string_view s, IpAddr* out, std::string* error) {
  auto fail = [&](std::string_view why) { return Invalid(error, "IP address", s, why); };
  if (s.size() > kMaxIpLength) return fail("longer than 43 characters");
  // Cedar refuses IPv4 embedded in IPv6 ("::ffff:1.2.3.4") by this test on
  // the whole string, before any parsing.
  if (AtLeastTwo(s, ':') && AtLeastTwo(s, '.')) return fail("IPv4 embedded in IPv6 is not supported");
  std::string_view addr = s;
  std::string_view prefix;
  size_t slash = s.find('/');
  if (slash != std::string_view::npos) {
    addr = s.substr(0, slash);
    prefix = s.substr(slash + 1);
  }
  IpAddr result;
  if (ParseIpv4(addr, result.bytes)) {
    result.v6 = false;
    result.prefix = kMaxPrefixV4;
  } else if (ParseIpv6(addr, result.bytes)) {
    result.v6 = true;
    result.prefix = kMaxPrefixV6;
  } else {
    return fail("");
  }
  if (slash != std::string_view::npos) {
    bool ok = result.v6 ? ParsePrefix(prefix, kMaxPrefixV6, 3, &result.prefix)
                        : ParsePrefix(prefix, kMaxPrefixV4, 2, &result.prefix);
    if (!ok) {
      return fail(result.v6 ? "the prefix must be 0 to 128 without leading zeros"
                             : "the prefix must be 0 to 32 without leading zeros");
    }
  }
  *out = result;
  return true;
}

bool IpEqual(const IpAddr& a, const IpAddr& b) {
  return a.v6 == b.v6 && a.prefix == b.prefix &&
         std::memcmp(a.bytes, b.bytes, static_cast<size_t>(AddressBytes(a))) == 0;
}

bool IsIpv4(const IpAddr& a) { return !a.v6; }
bool IsIpv6(const IpAddr& a) { return a.v6; }

bool IsLoopback(const IpAddr& a) {
  if (!a.v6) return a.bytes[0] == 127 && ClampedPrefix(a) >= 8;
  for (int i = 0; i < 15; ++i) {
    if (a.bytes[i] != 0) return false;
  }
  return a.bytes[15] == 1 && ClampedPrefix(a) >= kMaxPrefixV6;
}

bool IsMulticast(const IpAddr& a) {
  if (!a.v6) return a.bytes[0] >= 224 && a.bytes[0] <= 239 && ClampedPrefix(a) >= 4;
  return a.bytes[0] == 0xFF && ClampedPrefix(a) >= 8;
}

bool IsInRange(const IpAddr& a, const IpAddr& range) {
  if (a.v6 != range.v6) return false;
  int n = AddressBytes(a);
  unsigned pa = ClampedPrefix(a);
  unsigned pr = ClampedPrefix(range);
  uint8_t a_net[16], a_bcast[16], r_net[16], r_bcast[16];
  for (int i = 0; i < n; ++i) {
    uint8_t ma = MaskByte(i, pa);
    uint8_t mr = MaskByte(i, pr);
    a_net[i] = a.bytes[i] & ma;
    a_bcast[i] = static_cast<uint8_t>(a.bytes[i] | static_cast<uint8_t>(~ma));
    r_net[i] = range.bytes[i] & mr;
    r_bcast[i] = static_cast<uint8_t>(range.bytes[i] | static_cast<uint8_t>(~mr));
  }
  size_t len = static_cast<size_t>(n);
  return std::memcmp(r_net, a_net, len) <= 0 && std::memcmp(a_bcast, r_bcast, len) <= 0;
}

std::string FormatIp(const IpAddr& a) {
  std::string out;
  if (!a.v6) {
    for (int i = 0; i < 4; ++i) {
      if (i > 0) out.push_back('.');
      AppendUnsigned(&out, a.bytes[i]);
    }
  } else {
    unsigned g[8];
    for (int i = 0; i < 8; ++i) g[i] = (unsigned{a.bytes[2 * i]} << 8) | a.bytes[2 * i + 1];
    bool mapped = g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0 && g[4] == 0 && g[5] == 0xFFFF;
    if (mapped) {
      out = "::ffff:";
      for (int i = 12; i < 16; ++i) {
        if (i > 12) out.push_back('.');
        AppendUnsigned(&out, a.bytes[i]);
      }
    } else {
      // The first longest run of zero groups, if it has two or more.
      int best_start = 0, best_len = 0;
      for (int i = 0; i < 8;) {
        if (g[i] != 0) {
          ++i;
          continue;
        }
        int j = i;
        while (j < 8 && g[j] == 0) ++j;
        if (j - i > best_len) {
          best_start = i;
          best_len = j - i;
        }
        i = j;
      }
      if (best_len < 2) best_len = 0;
      for (int i = 0; i < 8; ++i) {
        if (best_len > 0 && i == best_start) {
          out += "::";
          i += best_len - 1;
          continue;
        }
        if (i > 0 && !(best_len > 0 && i == best_start + best_len)) out.push_back(':');
        AppendHex(&out, g[i]);
      }
    }
  }
  out.push_back('/');
  AppendUnsigned(&out, a.prefix);
  return out;
}

// ---------------------------------------------------------------- decimal

bool ParseDecimal(std::string_view s, int64_t* scaled_1e4, std::string* error) {
  auto fail = [&](std::string_view why) { return Invalid(error, "decimal", s, why); };
  // Cedar's pattern is ^(-?\d+)\.(\d+)$. Its \d also matches non-ASCII
  // digits, but Rust's integer parser then refuses them, so only ASCII
  // digits are ever accepted.
  size_t i = 0;
  bool negative = TakeMinus(s, &i);
  size_t int_start = i;
  while (i < s.size() && IsDigit(s[i])) ++i;
  size_t int_end = i;
  if (int_end == int_start || i >= s.size() || s[i] != '.') {
    return fail("expected digits, `.` and digits, like `12.34`");
  }
  size_t frac_start = ++i;
  while (i < s.size() && IsDigit(s[i])) ++i;
  if (i == frac_start || i != s.size()) return fail("expected digits, `.` and digits, like `12.34`");

  // Leading zeros are allowed in any number; the magnitude must fit the sign.
  const uint64_t limit = negative ? kInt64MinMagnitude : kInt64MaxMagnitude;
  constexpr char kRange[] = "out of range -922337203685477.5808 to 922337203685477.5807";
  uint64_t whole = 0;
  for (size_t k = int_start; k < int_end; ++k) {
    unsigned d = static_cast<unsigned>(s[k] - '0');
    if (whole > (limit - d) / 10) return fail(kRange);
    whole = whole * 10 + d;
  }
  if (whole > limit / 10000) return fail(kRange);
  size_t frac_len = s.size() - frac_start;
  if (frac_len > 4) return fail("more than 4 digits after the `.`");
  uint64_t frac = 0;
  for (size_t k = frac_start; k < s.size(); ++k) frac = frac * 10 + static_cast<unsigned>(s[k] - '0');
  for (size_t k = frac_len; k < 4; ++k) frac *= 10;
  uint64_t magnitude = whole * 10000;
  if (frac > limit - magnitude) return fail(kRange);
  magnitude += frac;
  // INVARIANT: magnitude <= limit, so both conversions are exact.
  *scaled_1e4 = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

std::string FormatDecimal(int64_t scaled_1e4) {
  std::string out;
  uint64_t magnitude = static_cast<uint64_t>(scaled_1e4);
  if (scaled_1e4 < 0) {
    out.push_back('-');
    magnitude = 0 - magnitude;
  }
  AppendUnsigned(&out, magnitude / 10000);
  out.push_back('.');
  AppendUnsigned(&out, magnitude % 10000, 4);
  return out;
}

// ------------------------------------------------------ datetime, duration

bool ParseDatetime(std::string_view s, int64_t* ms_since_epoch, std::string* error) {
  // Cedar checks the shape left to right first (date, then `Thh:mm:ss`, then
  // milliseconds and offset) and only then the values (date, time, offset).
  int year, month, day;
  if (!FixedDigits(s, 0, 4, &year) || s.size() < 5 || s[4] != '-' ||
      !FixedDigits(s, 5, 2, &month) || s.size() < 8 || s[7] != '-' ||
      !FixedDigits(s, 8, 2, &day)) {
    SetError(error, DatetimeError(s, "expected it to start with `YYYY-MM-DD`"));
    return false;
  }
  int hour = 0, minute = 0, second = 0, millis = 0;
  bool has_offset = false, offset_negative = false;
  int offset_hours = 0, offset_minutes = 0;
  if (s.size() > 10) {
    if (s[10] != 'T' || !FixedDigits(s, 11, 2, &hour) || s.size() < 14 || s[13] != ':' ||
        !FixedDigits(s, 14, 2, &minute) || s.size() < 17 || s[16] != ':' ||
        !FixedDigits(s, 17, 2, &second)) {
      SetError(error, DatetimeError(s, "expected `Thh:mm:ss` after the date"));
      return false;
    }
    // (\.[0-9]{3})?(Z|[+-][0-9]{4}), to the end of the string.
    size_t pos = 19;
    bool shape_ok = true;
    if (pos < s.size() && s[pos] == '.') {
      shape_ok = FixedDigits(s, pos + 1, 3, &millis);
      pos += 4;
    }
    if (shape_ok && pos < s.size() && s[pos] == 'Z') {
      shape_ok = pos + 1 == s.size();
    } else if (shape_ok && pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
      has_offset = true;
      offset_negative = s[pos] == '-';
      shape_ok = FixedDigits(s, pos + 1, 2, &offset_hours) &&
                 FixedDigits(s, pos + 3, 2, &offset_minutes) && pos + 5 == s.size();
    } else {
      shape_ok = false;
    }
    if (!shape_ok) {
      SetError(error, DatetimeError(s, "expected `Z`, `.SSSZ`, or an offset like `+0700` or `.SSS-0130` after the time"));
      return false;
    }
  }
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month)) {
    SetError(error, DatetimeError(s, "no such date"));
    return false;
  }
  // No leap second: seconds stop at 59.
  if (hour > 23 || minute > 59 || second > 59) {
    SetError(error, DatetimeError(s, "no such time of day"));
    return false;
  }
  if (has_offset && (offset_hours > 23 || offset_minutes > 59)) {
    SetError(error, DatetimeError(s, "the offset must be less than 24 hours with minutes below 60"));
    return false;
  }
  int64_t ms = DaysFromCivil(year, month, day) * kMillisPerDay +
               ((hour * 60 + minute) * 60 + second) * int64_t{1000} + millis;
  // A positive offset means the local time is ahead of UTC.
  int64_t offset_ms = (offset_hours * 60 + offset_minutes) * int64_t{60000};
  ms += offset_negative ? offset_ms : -offset_ms;
  *ms_since_epoch = ms;
  return true;
}

bool ParseDuration(std::string_view s, int64_t* ms, std::string* error) {
  // ^-?(N d)?(N h)?(N m)?(N s)?(N ms)?$ with at least one part.
  static constexpr uint64_t kUnitMillis[5] = {86'400'000, 3'600'000, 60'000, 1'000, 1};
  auto invalid = [&]() {
    return Invalid(error, "duration", s,
                   "expected quantity-unit pairs with units d, h, m, s, ms in that order, like "
                   "`1d2h3m4s5ms`, optionally after `-`");
  };
  size_t i = 0;
  bool negative = TakeMinus(s, &i);
  if (i == s.size()) return invalid();
  // All parts have the sign of the whole, so the total overflows exactly when
  // the sum of their magnitudes exceeds the sign's limit.
  const uint64_t limit = negative ? kInt64MinMagnitude : kInt64MaxMagnitude;
  uint64_t total = 0;
  bool overflow = false;
  int last_unit = -1;
  while (i < s.size()) {
    if (!IsDigit(s[i])) return invalid();
    uint64_t quantity = 0;
    bool big = false;
    for (; i < s.size() && IsDigit(s[i]); ++i) {
      unsigned d = static_cast<unsigned>(s[i] - '0');
      if (quantity > (limit - d) / 10) {
        big = true;
      } else {
        quantity = quantity * 10 + d;
      }
    }
    if (i == s.size()) return invalid();
    int unit;
    switch (s[i]) {
      case 'd': unit = 0; break;
      case 'h': unit = 1; break;
      case 'm':
        unit = (i + 1 < s.size() && s[i + 1] == 's') ? 4 : 2;
        break;
      case 's': unit = 3; break;
      default: return invalid();
    }
    i += unit == 4 ? 2 : 1;
    if (unit <= last_unit) return invalid();
    last_unit = unit;
    uint64_t mult = kUnitMillis[unit];
    if (big || quantity > limit / mult || quantity * mult > limit - total) {
      overflow = true;
    } else {
      total += quantity * mult;
    }
  }
  if (overflow) {
    std::string m = "duration ";
    m += Quoted(s);
    m += " is out of range: it must be -9223372036854775808ms to 9223372036854775807ms";
    SetError(error, std::move(m));
    return false;
  }
  // INVARIANT: total <= limit.
  *ms = negative ? static_cast<int64_t>(0 - total) : static_cast<int64_t>(total);
  return true;
}

namespace {

// The first and last instants that a UTC datetime string can name.
constexpr int64_t kFirstUtcMs = -62'167'219'200'000;      // 0000-01-01T00:00:00.000Z
constexpr int64_t kLastUtcMs = 253'402'300'799'999;       // 9999-12-31T23:59:59.999Z

// Appends the date and, if `with_time` or the time is not midnight, the time
// (milliseconds only when not zero) of the instant `ms`, with no zone.
// Returns whether it appended the time.
bool AppendCivil(std::string* out, int64_t ms, bool with_time) {
  int64_t days = FloorDiv(ms, kMillisPerDay);
  int64_t in_day = ms % kMillisPerDay;
  if (in_day < 0) in_day += kMillisPerDay;  // [0, kMillisPerDay); days * kMillisPerDay may not fit
  CivilDate date = CivilFromDays(days);
  if (date.year < 0) {
    out->push_back('-');
    AppendUnsigned(out, 0 - static_cast<uint64_t>(date.year), 4);
  } else {
    if (date.year > 9999) out->push_back('+');
    AppendUnsigned(out, static_cast<uint64_t>(date.year), 4);
  }
  out->push_back('-');
  AppendUnsigned(out, static_cast<uint64_t>(date.month), 2);
  out->push_back('-');
  AppendUnsigned(out, static_cast<uint64_t>(date.day), 2);
  if (in_day == 0 && !with_time) return false;
  uint64_t t = static_cast<uint64_t>(in_day);
  out->push_back('T');
  AppendUnsigned(out, t / 3'600'000, 2);
  out->push_back(':');
  AppendUnsigned(out, t / 60'000 % 60, 2);
  out->push_back(':');
  AppendUnsigned(out, t / 1000 % 60, 2);
  if (t % 1000 != 0) {
    out->push_back('.');
    AppendUnsigned(out, t % 1000, 3);
  }
  return true;
}

}  // namespace

std::string FormatDatetime(int64_t ms) {
  std::string out;
  // Up to 23:59 beyond either end of years 0000..9999 is still reachable
  // from a string, through an offset: print it that way, with the smallest
  // offset in whole minutes that brings the local time within range.
  constexpr int64_t kMaxOffsetMs = (23 * 60 + 59) * int64_t{60'000};
  int64_t offset_minutes = 0;
  if (ms > kLastUtcMs && ms - kLastUtcMs <= kMaxOffsetMs) {
    offset_minutes = -((ms - kLastUtcMs + 59'999) / 60'000);
  } else if (ms < kFirstUtcMs && kFirstUtcMs - ms <= kMaxOffsetMs) {
    offset_minutes = (kFirstUtcMs - ms + 59'999) / 60'000;
  }
  if (offset_minutes == 0) {
    if (AppendCivil(&out, ms, false)) out.push_back('Z');
    return out;
  }
  // INVARIANT: |offset_minutes| <= 23 * 60 + 59, and the local time stays
  // far from int64's limits.
  AppendCivil(&out, ms + offset_minutes * 60'000, true);
  uint64_t magnitude = static_cast<uint64_t>(offset_minutes < 0 ? -offset_minutes : offset_minutes);
  out.push_back(offset_minutes < 0 ? '-' : '+');
  AppendUnsigned(&out, magnitude / 60, 2);
  AppendUnsigned(&out, magnitude % 60, 2);
  return out;
}

std::string FormatDuration(int64_t ms) {
  std::string out;
  AppendSigned(&out, ms);
  out += "ms";
  return out;
}

bool Offset(int64_t datetime_ms, int64_t duration_ms, int64_t* out, std::string* error) {
  int64_t r;
  if (__builtin_add_overflow(datetime_ms, duration_ms, &r)) {
    SetError(error, "overflow when adding duration `" + FormatDuration(duration_ms) +
                        "` to datetime `" + FormatDatetime(datetime_ms) + "`");
    return false;
  }
  *out = r;
  return true;
}

bool DurationSince(int64_t a_ms, int64_t b_ms, int64_t* out, std::string* error) {
  int64_t r;
  if (__builtin_sub_overflow(a_ms, b_ms, &r)) {
    SetError(error, "overflow when computing the duration between datetime `" +
                        FormatDatetime(a_ms) + "` and datetime `" + FormatDatetime(b_ms) + "`");
    return false;
  }
  *out = r;
  return true;
}

bool ToDate(int64_t datetime_ms, int64_t* out, std::string* error) {
  int64_t rem = datetime_ms % kMillisPerDay;
  if (rem < 0) rem += kMillisPerDay;  // now the Euclidean remainder, [0, kMillisPerDay)
  if (datetime_ms < kInt64Min + rem) {
    SetError(error, "overflow when computing the date of datetime `" + FormatDatetime(datetime_ms) + "`");
    return false;
  }
  *out = datetime_ms - rem;
  return true;
}

bool ToTime(int64_t datetime_ms, int64_t* out, std::string* /*error*/) {
  int64_t rem = datetime_ms % kMillisPerDay;
  *out = rem < 0 ? rem + kMillisPerDay : rem;
  return true;
}

int64_t ToDays(int64_t ms) { return ms / kMillisPerDay; }
int64_t ToHours(int64_t ms) { return ms / 3'600'000; }
int64_t ToMinutes(int64_t ms) { return ms / 60'000; }
int64_t ToSeconds(int64_t ms) { return ms / 1000; }
int64_t ToMilliseconds(int64_t ms) { return ms; }

}  // namespace charter::internal::ext
