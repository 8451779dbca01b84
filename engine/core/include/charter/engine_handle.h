// EngineHandle: the engine a service decides with now, replaceable while
// calls are in flight. Each call takes a snapshot of the current engine and
// keeps it alive until it returns; Swap installs a new engine atomically, so
// every call sees either the old policy set or the new one, never a mix.
//
//   charter::EngineHandle handle(*charter::Engine::Create(bundle));
//   handle.Authorize(request, entities);                 // any thread
//   absl::Status s = handle.SwapBundle(new_bundle);      // the reloader
#ifndef CHARTER_ENGINE_HANDLE_H_
#define CHARTER_ENGINE_HANDLE_H_

#include <cstdint>
#include <memory>
#include <mutex>

#include "absl/status/status.h"
#include "charter/bundle.h"
#include "charter/decision.h"
#include "charter/engine.h"
#include "charter/entities.h"
#include "charter/eval_context.h"
#include "charter/export.h"
#include "charter/request.h"

namespace charter {

class CHARTER_API EngineHandle {
 public:
  explicit EngineHandle(Engine engine);
  EngineHandle(const EngineHandle&) = delete;
  EngineHandle& operator=(const EngineHandle&) = delete;

  // The current engine. Holding the pointer keeps that engine alive after a
  // swap.
  std::shared_ptr<const Engine> Get() const;
  // Installs `engine` for every call that starts from now on.
  void Swap(Engine engine);
  // Verifies `bundle` and installs it; on an error the current engine stays.
  absl::Status SwapBundle(Bundle bundle, const VerifyOptions& options = {});
  // How many times an engine was installed (1 after construction).
  uint64_t generation() const;

  Decision Authorize(const Request& request, const Entities& entities) const;
  // With a reusable context; the context keeps the engine it used alive, so
  // its views stay valid across a swap.
  bool Authorize(const Request& request, const Entities& entities, EvalContext* context) const;

 private:
  mutable std::mutex mu_;  // guards the two fields below; held only to copy or replace them
  std::shared_ptr<const Engine> engine_;
  uint64_t generation_ = 1;
};

}  // namespace charter

#endif  // CHARTER_ENGINE_HANDLE_H_
