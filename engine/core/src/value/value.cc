// Value equality, lookup and printing.
#include "value/value.h"

#include "value/walk.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "extensions/extensions.h"
#include "common/strings.h"

namespace charter::internal {

const Value* FindField(const Value& record, std::string_view key) {
  const RecordField* begin = record.fields;
  const RecordField* end = record.fields + record.size;
  const RecordField* it = std::lower_bound(
      begin, end, key, [](const RecordField& f, std::string_view k) { return f.key < k; });
  if (it == end || it->key != key) return nullptr;
  return &it->value;
}

namespace {

bool IsScalar(Type t) { return t != Type::kSet && t != Type::kRecord; }

// Two scalars of the same type.
bool ScalarEqual(const Value& a, const Value& b) {
  switch (a.type) {
    case Type::kBool:
      return a.b == b.b;
    case Type::kLong:
    case Type::kDecimal:
    case Type::kDatetime:
    case Type::kDuration:
      return a.i == b.i;
    case Type::kString:
      return a.string() == b.string();
    case Type::kEntity:
      if (a.entity->uid != kNoUid && a.entity->uid == b.entity->uid) return true;
      return a.entity->id == b.entity->id && a.entity->type == b.entity->type;
    case Type::kIp:
      return ext::IpEqual(*a.ip, *b.ip);
    case Type::kSet:
    case Type::kRecord:
      break;
  }
  return false;
}

}  // namespace

bool Equal(const Value& a, const Value& b, WalkBudget* budget) {
  if (a.type != b.type) return false;
  switch (a.type) {
    case Type::kRecord:
      if (a.size != b.size || !budget->Take(uint64_t{1} + a.size)) return false;
      for (uint32_t i = 0; i < a.size; ++i) {
        if (a.fields[i].key != b.fields[i].key || !Equal(a.fields[i].value, b.fields[i].value, budget)) {
          return false;
        }
      }
      return true;
    case Type::kSet:
      // INVARIANT: set elements are unique, so equal sizes and inclusion
      // one way mean equality.
      return a.size == b.size && budget->Take(1) && SetHasEach(b, a.elements, a.size, /*all=*/true, budget);
    default:
      return ScalarEqual(a, b);
  }
}

namespace {

uint64_t Mix(uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t HashBytes(std::string_view s) { return Mix(std::hash<std::string_view>{}(s)); }

}  // namespace

uint64_t HashValue(const Value& v, WalkBudget* budget) {
  uint64_t h = Mix(static_cast<uint64_t>(v.type) + 1);
  switch (v.type) {
    case Type::kBool:
      return h ^ Mix(v.b ? 2 : 1);
    case Type::kLong:
    case Type::kDecimal:
    case Type::kDatetime:
    case Type::kDuration:
      return h ^ Mix(static_cast<uint64_t>(v.i));
    case Type::kString:
      return h ^ HashBytes(v.string());
    case Type::kEntity:
      // Equal by uid implies equal by type and id (a store's uids name one
      // entity each), so hashing the strings agrees with both.
      return h ^ HashBytes(v.entity->type) ^ Mix(HashBytes(v.entity->id));
    case Type::kRecord:
      if (!budget->Take(uint64_t{1} + v.size)) return 0;
      for (uint32_t i = 0; i < v.size && !budget->exhausted(); ++i) {
        h = Mix(h ^ HashBytes(v.fields[i].key)) ^ HashValue(v.fields[i].value, budget);
      }
      return h;
    case Type::kSet: {
      uint64_t sum = 0;  // order-independent
      if (!budget->Take(uint64_t{1} + v.size)) return 0;
      for (uint32_t i = 0; i < v.size && !budget->exhausted(); ++i) sum += HashValue(v.elements[i], budget);
      return h ^ Mix(sum);
    }
    case Type::kIp:
      // IpEqual compares the version, the bytes and the prefix.
      h ^= Mix(v.ip->v6 ? 6 : 4) ^ Mix(v.ip->prefix + 7);
      return h ^ HashBytes(std::string_view(reinterpret_cast<const char*>(v.ip->bytes), sizeof v.ip->bytes));
  }
  return h;
}

uint32_t AppendUnique(Value* elems, uint32_t unique, const Value* src, uint32_t n, WalkBudget* budget) {
  if (!budget->Take(uint64_t{unique} + n)) return unique;
  // Pairwise while that costs little: the sets of most policies are small,
  // and this path allocates nothing.
  if ((uint64_t{unique} + n) * n <= 4096) {
    for (uint32_t i = 0; i < n && !budget->exhausted(); ++i) {
      bool dup = false;
      for (uint32_t k = 0; k < unique && !dup; ++k) dup = Equal(elems[k], src[i], budget);
      if (!dup) elems[unique++] = src[i];
    }
    return unique;
  }
  // An open-addressing table of indices into elems, at most half full.
  size_t capacity = 16;
  while (capacity < 2 * (size_t{unique} + n)) capacity *= 2;
  constexpr uint32_t kEmpty = 0xFFFFFFFF;
  std::vector<uint32_t> table(capacity, kEmpty);
  std::vector<uint64_t> hashes(size_t{unique} + n);
  auto slot_of = [&](uint64_t hash) { return static_cast<size_t>(hash) & (capacity - 1); };
  for (uint32_t k = 0; k < unique; ++k) {
    hashes[k] = HashValue(elems[k], budget);
    size_t s = slot_of(hashes[k]);
    while (table[s] != kEmpty) s = (s + 1) & (capacity - 1);
    table[s] = k;
  }
  for (uint32_t i = 0; i < n && !budget->exhausted(); ++i) {
    const Value v = src[i];
    uint64_t hash = HashValue(v, budget);
    size_t s = slot_of(hash);
    bool dup = false;
    for (; table[s] != kEmpty; s = (s + 1) & (capacity - 1)) {
      if (hashes[table[s]] == hash && Equal(elems[table[s]], v, budget)) {
        dup = true;
        break;
      }
    }
    if (dup) continue;
    hashes[unique] = hash;
    table[s] = unique;
    elems[unique++] = v;
  }
  return unique;
}

bool SetHasEach(const Value& set, const Value* vs, uint32_t n, bool all, WalkBudget* budget) {
  if (!budget->Take(uint64_t{set.size} + n)) return false;
  auto has_pairwise = [&](const Value& v) {
    for (uint32_t k = 0; k < set.size && !budget->exhausted(); ++k) {
      if (Equal(set.elements[k], v, budget)) return true;
    }
    return false;
  };
  if (uint64_t{set.size} * n <= 4096) {
    for (uint32_t i = 0; i < n && !budget->exhausted(); ++i) {
      if (has_pairwise(vs[i]) != all) return !all;
    }
    return all;
  }
  // An open-addressing table of indices into the set's elements, at most
  // half full.
  size_t capacity = 16;
  while (capacity < 2 * size_t{set.size}) capacity *= 2;
  constexpr uint32_t kEmpty = 0xFFFFFFFF;
  std::vector<uint32_t> table(capacity, kEmpty);
  std::vector<uint64_t> hashes(set.size);
  auto slot_of = [&](uint64_t hash) { return static_cast<size_t>(hash) & (capacity - 1); };
  for (uint32_t k = 0; k < set.size && !budget->exhausted(); ++k) {
    hashes[k] = HashValue(set.elements[k], budget);
    size_t s = slot_of(hashes[k]);
    while (table[s] != kEmpty) s = (s + 1) & (capacity - 1);
    table[s] = k;
  }
  for (uint32_t i = 0; i < n && !budget->exhausted(); ++i) {
    uint64_t hash = HashValue(vs[i], budget);
    bool has = false;
    for (size_t s = slot_of(hash); table[s] != kEmpty && !has; s = (s + 1) & (capacity - 1)) {
      has = hashes[table[s]] == hash && Equal(set.elements[table[s]], vs[i], budget);
    }
    if (has != all) return !all;
  }
  return all;
}

// value.h's forms, unbounded.
bool Equal(const Value& a, const Value& b) {
  if (a.type != b.type) return false;
  if (IsScalar(a.type)) return ScalarEqual(a, b);
  WalkBudget unbounded;
  return Equal(a, b, &unbounded);
}

uint64_t HashValue(const Value& v) {
  WalkBudget unbounded;
  return HashValue(v, &unbounded);
}

uint32_t AppendUnique(Value* elems, uint32_t unique, const Value* src, uint32_t n) {
  WalkBudget unbounded;
  return AppendUnique(elems, unique, src, n, &unbounded);
}

bool SetHasEach(const Value& set, const Value* vs, uint32_t n, bool all) {
  WalkBudget unbounded;
  return SetHasEach(set, vs, n, all, &unbounded);
}

std::string_view TypeName(Type t) {
  switch (t) {
    case Type::kBool: return "bool";
    case Type::kLong: return "long";
    case Type::kString: return "string";
    case Type::kEntity: return "entity";
    case Type::kSet: return "set";
    case Type::kRecord: return "record";
    case Type::kIp: return "ipaddr";
    case Type::kDecimal: return "decimal";
    case Type::kDatetime: return "datetime";
    case Type::kDuration: return "duration";
  }
  return "?";
}

void AppendCedarEscaped(std::string* out, std::string_view s, bool escape_star) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      case '\0': out->append("\\0"); break;
      case '*': out->append(escape_star ? "\\*" : "*"); break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out->append("\\u{");
          if (c >= 0x10) out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 0xf]);
          out->push_back('}');
        } else {
          out->push_back(ch);
        }
    }
  }
}

void AppendQuotedCedar(std::string* out, std::string_view s) {
  out->push_back('"');
  AppendCedarEscaped(out, s);
  out->push_back('"');
}

namespace {
void Append(std::string* out, const Value& v) {
  switch (v.type) {
    case Type::kBool: *out += v.b ? "true" : "false"; break;
    case Type::kLong: CatAppend(out, v.i); break;
    case Type::kString: AppendQuotedCedar(out, v.string()); break;
    case Type::kEntity: *out += EntityToCedar(v.entity->type, v.entity->id); break;
    case Type::kSet:
      out->push_back('[');
      for (uint32_t i = 0; i < v.size; ++i) {
        if (i > 0) *out += ", ";
        Append(out, v.elements[i]);
      }
      out->push_back(']');
      break;
    case Type::kIp: CatAppend(out, "ip(\"", ext::FormatIp(*v.ip), "\")"); break;
    case Type::kDecimal: CatAppend(out, "decimal(\"", ext::FormatDecimal(v.i), "\")"); break;
    case Type::kDatetime: CatAppend(out, "datetime(\"", ext::FormatDatetime(v.i), "\")"); break;
    case Type::kDuration: CatAppend(out, "duration(\"", ext::FormatDuration(v.i), "\")"); break;
    case Type::kRecord:
      out->push_back('{');
      for (uint32_t i = 0; i < v.size; ++i) {
        if (i > 0) *out += ", ";
        AppendQuotedCedar(out, v.fields[i].key);
        *out += ": ";
        Append(out, v.fields[i].value);
      }
      out->push_back('}');
      break;
  }
}
}  // namespace

std::string ToCedar(const Value& v) {
  std::string out;
  Append(&out, v);
  return out;
}

void AppendEntityToCedar(std::string* out, std::string_view type, std::string_view id) {
  out->append(type);
  out->append("::");
  AppendQuotedCedar(out, id);
}

std::string EntityToCedar(std::string_view type, std::string_view id) {
  std::string out(type);
  out += "::";
  AppendQuotedCedar(&out, id);
  return out;
}

}  // namespace charter::internal
