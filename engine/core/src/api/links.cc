// charter::ParseTemplateLinks: the Cedar CLI's `--template-linked` JSON form.
#include "charter/compiler.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/diagnostic_codes.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "entities/json_values.h"
#include "json/json.h"
#include "json/json_diagnostics.h"

namespace charter {

using internal::Cat;
namespace codes = internal::codes;

namespace {

// json::LineCol for the links of one file, in order: each position counted
// on from the one before (counting each from the start of the file was
// quadratic in the links: 30,000 of them took 72 s). Lines split at '\n',
// columns in Unicode scalar values, both 1-based, as LineCol counts.
class LineCounter {
 public:
  explicit LineCounter(std::string_view text) : text_(text) {}
  // INVARIANT: offsets come in increasing order.
  std::string At(uint32_t offset) {
    const size_t end = std::min<size_t>(offset, text_.size());
    for (; at_ < end; ++at_) {
      const char c = text_[at_];
      if (c == '\n') {
        ++line_;
        column_ = 1;
      } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
        ++column_;
      }
    }
    return Cat(line_, ":", column_);
  }

 private:
  std::string_view text_;
  size_t at_ = 0;  // counted up to here
  size_t line_ = 1;
  size_t column_ = 1;
};

}  // namespace

absl::StatusOr<std::vector<TemplateLink>> ParseTemplateLinks(std::string_view json,
                                                             std::string_view source_name) {
  internal::json::ParseFault fault;
  auto doc = internal::json::Parse(json, {}, &fault);
  if (!doc.ok()) {
    return internal::json::ParseFaultStatus(source_name, json, fault, codes::CH0600, codes::CH0601);
  }
  internal::JsonSource src{source_name, json};
  const internal::json::Value& root = doc->root();
  if (!root.is_array()) return src.Error(codes::CH0602, root.offset(), "template links must be a JSON array");
  std::vector<TemplateLink> links;
  LineCounter line_col(json);
  for (size_t i = 0; i < root.size(); ++i) {
    const internal::json::Value& v = root.at(i);
    if (!v.is_object()) return src.Error(codes::CH0602, v.offset(), "a template link must be a JSON object");
    TemplateLink link;
    link.origin = Cat(source_name, ":", line_col.At(v.offset()));
    const internal::json::Value* args = nullptr;
    bool have_template = false, have_link = false;
    for (size_t k = 0; k < v.size(); ++k) {
      std::string_view key = v.key(k);
      const internal::json::Value& m = v.member(k);
      if (key == "template_id" || key == "link_id") {
        if (!m.is_string()) return src.Error(codes::CH0602, m.offset(), Cat("`", key, "` must be a string"));
        (key == "template_id" ? link.template_id : link.link_id) = std::string(m.as_string());
        (key == "template_id" ? have_template : have_link) = true;
      } else if (key == "args") {
        args = &m;
      } else {
        return src.KeyError(codes::CH0604, v.key_offset(k), Cat("unexpected key `", key,
                                              "` in a template link; expected `template_id`, "
                                              "`link_id` and `args`"));
      }
    }
    if (!have_template || !have_link || args == nullptr) {
      return src.Error(codes::CH0603, v.offset(), Cat("a template link lacks `",
                                       !have_template ? "template_id" : !have_link ? "link_id" : "args",
                                       "`"));
    }
    if (!args->is_object()) return src.Error(codes::CH0602, args->offset(), "`args` must be a JSON object");
    for (size_t k = 0; k < args->size(); ++k) {
      std::string_view slot = args->key(k);
      std::optional<EntityUid>* target = slot == "?principal"  ? &link.principal
                                         : slot == "?resource" ? &link.resource
                                                               : nullptr;
      if (target == nullptr) {
        return src.KeyError(codes::CH0604, args->key_offset(k),
                         Cat("unknown slot `", slot, "`; the slots are `?principal` and `?resource`"));
      }
      EntityUid uid;
      RETURN_IF_ERROR(internal::ReadEntityUidOrText(args->member(k), src, slot, &uid));
      *target = std::move(uid);
    }
    links.push_back(std::move(link));
  }
  return links;
}

}  // namespace charter
