// The registry's tag methods (builtins.def: hasTag, getTag). They read the
// entity store, so they live in the entities stage, which sits above the
// registry: builtins/ declares them and its table points here.
#include "builtins/builtins.h"

#include "common/strings.h"
#include "entities/entity_store.h"

namespace charter::internal {
namespace {

const EntityData* EntityOf(const Value& v, const EntityStore* store) {
  uint32_t uid = v.entity->uid != kNoUid ? v.entity->uid : store->Find(v.entity->type, v.entity->id);
  return uid == kNoUid ? nullptr : store->data(uid);
}

// The entity and its tag named by args[1], either of them null when absent.
bool FindTag(const Value* args, const CallContext& ctx, const EntityData** data, const Value** tag,
             std::string* error) {
  if (!ExpectArgType(args[0], Type::kEntity, error) ||
      !ExpectArgType(args[1], Type::kString, error)) {
    return false;
  }
  *data = EntityOf(args[0], ctx.store);
  *tag = *data == nullptr ? nullptr : FindField((*data)->tags, args[1].string());
  return true;
}

}  // namespace

bool EntityHasTag(const Value* args, const CallContext& ctx, Value* out, std::string* error) {
  const EntityData* data;
  const Value* tag;
  if (!FindTag(args, ctx, &data, &tag, error)) return false;
  *out = Value::Bool(tag != nullptr);
  return true;
}

bool EntityGetTag(const Value* args, const CallContext& ctx, Value* out, std::string* error) {
  const EntityData* data;
  const Value* tag;
  if (!FindTag(args, ctx, &data, &tag, error)) return false;
  const EntityRef& self = *args[0].entity;
  if (data == nullptr) {
    error->append("entity `");
    AppendEntityToCedar(error, self.type, self.id);
    error->append("` does not exist");
    return false;
  }
  if (tag == nullptr) {
    error->push_back('`');
    AppendEntityToCedar(error, self.type, self.id);
    CatAppend(error, "` does not have the tag `", args[1].string(), "`");
    return false;
  }
  *out = *tag;
  return true;
}

}  // namespace charter::internal
