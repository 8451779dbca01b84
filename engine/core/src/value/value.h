// Values: what expressions evaluate to. A Value is 16 bytes and trivially
// copyable; strings, records and sets point into storage owned by an entity
// store, a request or a program (an arena), which outlives every evaluation.
#ifndef CHARTER_VALUE_VALUE_H_
#define CHARTER_VALUE_VALUE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace charter::internal {

enum class Type : uint8_t {
  kBool, kLong, kString, kEntity, kSet, kRecord,
  // Extension types. decimal: i is the value times 10^4; datetime: i is
  // milliseconds since the Unix epoch; duration: i is milliseconds.
  kIp, kDecimal, kDatetime, kDuration,
};

namespace ext {
struct IpAddr;
}  // namespace ext

inline constexpr uint32_t kNoUid = 0xFFFFFFFF;

// An entity reference. `uid` is its index in the entity store it was built
// for, or kNoUid when it is not known to that store (yet).
struct EntityRef {
  std::string_view type;
  std::string_view id;
  uint32_t uid = kNoUid;
  // EntityKeyHash(type, id) (entities/entity_store.h) when it was worked
  // out ahead, so that a store looks the entity up without hashing its
  // strings; 0 when not known.
  uint64_t key_hash = 0;
};

struct RecordField;
struct Value;

struct Value {
  Type type = Type::kBool;
  // A record whose keys an entity store interned (EntityStore::InternedKey):
  // equal keys are one string there, so a key is found by its address.
  bool interned_keys = false;
  // For a set or record the VM built: how deep it nests the VM's sets and
  // records (1 + the deepest of its elements'); 0 for any other value (a
  // reader that builds values bounds their nesting itself). The VM keeps it
  // under VerifyOptions::max_value_depth, so that every recursive walk over
  // values (Equal, HashValue, printing) is bounded.
  uint16_t depth = 0;
  uint32_t size = 0;  // bytes of a string, fields of a record, elements of a set
  union {
    bool b;
    int64_t i;
    const char* str;
    const EntityRef* entity;
    const RecordField* fields;  // sorted by key, unique keys
    const Value* elements;      // unique elements
    const ext::IpAddr* ip;
  };

  Value() : i(0) {}
  static Value Bool(bool v) {
    Value x;
    x.type = Type::kBool;
    x.b = v;
    return x;
  }
  static Value Long(int64_t v) {
    Value x;
    x.type = Type::kLong;
    x.i = v;
    return x;
  }
  static Value String(std::string_view s) {
    Value x;
    x.type = Type::kString;
    x.str = s.data();
    x.size = static_cast<uint32_t>(s.size());
    return x;
  }
  static Value Entity(const EntityRef* e) {
    Value x;
    x.type = Type::kEntity;
    x.entity = e;
    return x;
  }
  static Value Record(const RecordField* fields, uint32_t n) {
    Value x;
    x.type = Type::kRecord;
    x.fields = fields;
    x.size = n;
    return x;
  }
  static Value Set(const Value* elements, uint32_t n) {
    Value x;
    x.type = Type::kSet;
    x.elements = elements;
    x.size = n;
    return x;
  }
  static Value Ext(Type t, int64_t v) {
    Value x;
    x.type = t;
    x.i = v;
    return x;
  }
  static Value Ip(const ext::IpAddr* addr) {
    Value x;
    x.type = Type::kIp;
    x.ip = addr;
    return x;
  }
  std::string_view string() const { return {str, size}; }
};

static_assert(sizeof(Value) == 16, "a Value is 16 bytes");

struct RecordField {
  std::string_view key;
  Value value;
};

// Finds a record field by key (binary search), or nullptr.
const Value* FindField(const Value& record, std::string_view key);

// Cedar's `==`: total; sets compare as sets, records structurally, entities
// by type and id.
bool Equal(const Value& a, const Value& b);

// A hash of a value that agrees with Equal: equal values hash alike (a
// set's does not depend on the order of its elements).
uint64_t HashValue(const Value& v);

// Appends to elems[0, unique), whose elements are unique, each of src[0, n)
// that equals none of them nor an earlier one, in order; returns the new
// count. `src` may be `elems + unique` or later (it is read before each
// write). Small inputs compare pairwise; large ones through a hash table,
// so that building a set is never quadratic.
uint32_t AppendUnique(Value* elems, uint32_t unique, const Value* src, uint32_t n);

// With `all`, whether every one of vs[0, n) is an element of `set`; without,
// whether any is. Small inputs compare pairwise; large ones look each up in
// a hash table of the set's elements, so that containsAll, containsAny and
// the equality of sets are never quadratic (issue 15: containsAll of two
// sets of 500,000 integers took 4 minutes).
bool SetHasEach(const Value& set, const Value* vs, uint32_t n, bool all);

// Cedar's name for a type, as error messages use it.
std::string_view TypeName(Type t);

// Cedar's text form of a value (entities as `Type::"id"`).
std::string ToCedar(const Value& v);
std::string EntityToCedar(std::string_view type, std::string_view id);
// A string's characters as a Cedar string literal writes them (quotes,
// backslashes and control characters escaped; `*` too with escape_star, as
// in a `like` pattern), without the quotes; and with them.
void AppendCedarEscaped(std::string* out, std::string_view s, bool escape_star = false);
void AppendQuotedCedar(std::string* out, std::string_view s);
void AppendEntityToCedar(std::string* out, std::string_view type, std::string_view id);

}  // namespace charter::internal

#endif  // CHARTER_VALUE_VALUE_H_
