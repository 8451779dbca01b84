// charter::ParseTemplateLinks: the Cedar CLI's `--template-linked` JSON form.
#include "charter/compiler.h"
#include "common/diagnostic_codes.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "entities/json_values.h"
#include "json/json.h"
#include "json/json_diagnostics.h"

namespace charter {

using internal::Cat;
namespace codes = internal::codes;

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
  for (size_t i = 0; i < root.size(); ++i) {
    const internal::json::Value& v = root.at(i);
    if (!v.is_object()) return src.Error(codes::CH0602, v.offset(), "a template link must be a JSON object");
    TemplateLink link;
    link.origin = Cat(source_name, ":", internal::json::LineCol(json, v.offset()));
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
