// How the library's own code unwraps a public object: the entity
// store behind an Entities, the data behind a Request, the schema behind a
// Schema, the program behind an Engine. The public headers hand none of these out; a user of the library
// cannot include this header (it is under engine/core/src/). A stage of its own,
// below every stage that implements part of the public API (check, interp,
// api), and above the stages whose data it hands out.
//
//   const internal::EntityStore& store = internal::Unwrap::Store(entities);
#ifndef CHARTER_UNWRAP_UNWRAP_H_
#define CHARTER_UNWRAP_UNWRAP_H_

#include <memory>
#include <utility>

#include "charter/engine.h"
#include "charter/entities.h"
#include "charter/request.h"
#include "charter/schema.h"
#include "entities/entity_store.h"
#include "request/request_data.h"
#include "schema/schema_model.h"

namespace charter::internal {

class Unwrap {
 public:
  static const EntityStore& Store(const Entities& e) { return *e.store_; }
  static const std::shared_ptr<const EntityStore>& SharedStore(const Entities& e) { return e.store_; }
  static Entities MakeEntities(std::shared_ptr<const EntityStore> store) { return Entities(std::move(store)); }

  static const RequestData& Data(const Request& r) { return *r.data_; }
  static Request MakeRequest(std::shared_ptr<const RequestData> data) { return Request(std::move(data)); }

  static const SchemaData& Data(const Schema& s) { return *s.data_; }
  // The verified program (vm/program.h; only declared here).
  static const std::shared_ptr<const Program>& SharedProgram(const Engine& e) { return e.program_; }
  // The context's memory, made on first use.
  static std::unique_ptr<EvalScratch>& Scratch(EvalContext* c) { return c->scratch_; }

  static const SchemaModel& Model(const Schema& s) { return s.data_->model; }
};

}  // namespace charter::internal

#endif  // CHARTER_UNWRAP_UNWRAP_H_
