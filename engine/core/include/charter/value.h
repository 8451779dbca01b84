// Value: a Cedar value built in code, for the attributes and tags of
// entities built in code (charter/entities.h's Entity) and for a request's
// context (Request::Create). A value is a tree that owns its parts; it is
// copied by value. The library checks it (against a schema, when given one)
// where it is used, never here:
//
//   charter::Value gpus = charter::Value::Long(8);
//   charter::Value owner = charter::Value::Entity({"Team", "ml"});
//   charter::Value profile = charter::Value::Record({{"gpus", gpus}, {"owner", owner}});
//   charter::Value ip = charter::Value::Extension("ip", "10.0.0.1");
#ifndef CHARTER_VALUE_H_
#define CHARTER_VALUE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "charter/entity_uid.h"
#include "charter/export.h"

namespace charter {

class CHARTER_API Value {
 public:
  enum class Kind { kBool, kLong, kString, kEntity, kSet, kRecord, kExtension };

  // The empty record.
  Value() = default;

  static Value Bool(bool b);
  static Value Long(int64_t n);
  static Value String(std::string s);
  static Value Entity(EntityUid uid);
  // Duplicates are dropped where the value is used, as Cedar's sets drop them.
  static Value Set(std::vector<Value> elements);
  // Keys must be distinct: a repeated key is refused where the value is used.
  static Value Record(std::vector<std::pair<std::string, Value>> fields);
  // A call of one of Cedar's extension constructors on a string: `ip`,
  // `decimal`, `datetime` or `duration` (Extension("decimal", "1.25")).
  // The argument is parsed where the value is used, and refused there with
  // the constructor's reason.
  static Value Extension(std::string function, std::string argument);

  Kind kind() const { return kind_; }
  bool bool_value() const { return number_ != 0; }             // kBool
  int64_t long_value() const { return number_; }               // kLong
  const std::string& string_value() const { return text_; }    // kString; kExtension: the argument
  const std::string& function() const { return function_; }    // kExtension
  const EntityUid& entity() const { return uid_; }             // kEntity
  const std::vector<Value>& elements() const { return elements_; }  // kSet; kRecord: the fields' values
  const std::vector<std::string>& keys() const { return keys_; }    // kRecord, in the order given

  // Cedar's JSON value encoding, as Entities::FromJson and a request's
  // context read it: entities as {"__entity": {...}}, extension values as
  // {"__extn": {"fn", "arg"}}, sets as arrays, records as objects.
  std::string ToJson() const;
  void AppendJson(std::string* out) const;

 private:
  Kind kind_ = Kind::kRecord;
  int64_t number_ = 0;
  std::string text_;
  std::string function_;
  EntityUid uid_;
  std::vector<std::string> keys_;
  std::vector<Value> elements_;
};

}  // namespace charter

#endif  // CHARTER_VALUE_H_
