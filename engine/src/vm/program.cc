// Program: a verified bundle decoded into the tables the VM reads.
#include "vm/program.h"

#include <utility>

namespace charter::internal {

Program::Program(Bundle bundle, const fb::Bundle* root, std::optional<::charter::schedule::State> scheduling)
    : bundle_(std::move(bundle)), root_(root), scheduling_(std::move(scheduling)) {
  if (root_->strings() != nullptr) {
    for (const flatbuffers::String* s : *root_->strings()) {
      strings_.push_back(Value::String(s->string_view()));
    }
  }
  if (root_->longs() != nullptr) {
    for (int64_t v : *root_->longs()) longs_.push_back(v);
  }
  if (root_->entities() != nullptr) {
    for (const fb::EntityConst* e : *root_->entities()) {
      std::string_view type = e->type()->string_view(), id = e->id()->string_view();
      entities_.push_back(EntityRef{type, id, kNoUid, EntityKeyHash(type, id)});
    }
  }
  if (root_->patterns() != nullptr) {
    for (const fb::Pattern* p : *root_->patterns()) {
      std::vector<PatternPart> parts;
      for (const fb::PatternElem* e : *p->elems()) {
        parts.push_back({e->wildcard(), e->wildcard() ? std::string_view() : e->literal()->string_view()});
      }
      patterns_.push_back(std::move(parts));
    }
  }
  if (root_->record_shapes() != nullptr) {
    for (const fb::RecordShape* shape : *root_->record_shapes()) {
      RecordShapeView view;
      for (uint32_t k : *shape->keys()) view.keys.push_back(strings_[k].string());
      for (uint32_t o : *shape->order()) view.order.push_back(o);
      shapes_.push_back(std::move(view));
    }
  }
  if (root_->const_sets() != nullptr) {
    // INVARIANT: the verifier checked every index and that the elements
    // are unique; entities_ and strings_ no longer move.
    for (const fb::ConstSet* set : *root_->const_sets()) {
      std::vector<Value> elems;
      elems.reserve(set->elems()->size());
      for (const fb::ConstScalar* e : *set->elems()) {
        switch (e->kind()) {
          case fb::ScalarKind::Bool: elems.push_back(Value::Bool(e->index() != 0)); break;
          case fb::ScalarKind::Long: elems.push_back(Value::Long(longs_[e->index()])); break;
          case fb::ScalarKind::String: elems.push_back(strings_[e->index()]); break;
          default: elems.push_back(Value::Entity(&entities_[e->index()])); break;
        }
      }
      const_set_elements_.push_back(std::move(elems));
    }
    for (const std::vector<Value>& elems : const_set_elements_) {
      const_sets_.push_back(Value::Set(elems.data(), static_cast<uint32_t>(elems.size())));
    }
  }
  if (root_->schema_fingerprint() != nullptr) {
    schema_fingerprint_ = root_->schema_fingerprint()->string_view();
  }
  if (root_->policies() != nullptr) {
    for (const fb::Policy* p : *root_->policies()) {
      PolicyCode pc;
      pc.id = p->id()->string_view();
      pc.forbid = p->effect() == fb::Effect::Forbid;
      pc.code = p->code()->data();
      pc.size = p->code()->size();
      pc.num_registers = p->num_registers();
      pc.source = p;
      policies_.push_back(pc);
    }
  }
  scope_index_.Build(*this);
}

}  // namespace charter::internal
