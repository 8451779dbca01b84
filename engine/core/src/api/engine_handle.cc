// charter::EngineHandle: a shared_ptr to the current engine, copied and
// replaced under a mutex that is held for nothing else (no allocation and
// no evaluation happen under it).
#include "charter/engine_handle.h"

#include <utility>

#include "common/status_macros.h"

namespace charter {

EngineHandle::EngineHandle(Engine engine)
    : engine_(std::make_shared<const Engine>(std::move(engine))) {}

std::shared_ptr<const Engine> EngineHandle::Get() const {
  std::lock_guard<std::mutex> lock(mu_);
  return engine_;
}

void EngineHandle::Swap(Engine engine) {
  auto next = std::make_shared<const Engine>(std::move(engine));
  std::shared_ptr<const Engine> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    old = std::exchange(engine_, std::move(next));
    ++generation_;
  }
  // `old` is released here, outside the lock; calls still using it hold
  // their own references.
}

absl::Status EngineHandle::SwapBundle(Bundle bundle, const VerifyOptions& options) {
  ASSIGN_OR_RETURN(Engine engine, Engine::Create(std::move(bundle), options));
  Swap(std::move(engine));
  return absl::OkStatus();
}

uint64_t EngineHandle::generation() const {
  std::lock_guard<std::mutex> lock(mu_);
  return generation_;
}

Decision EngineHandle::Authorize(const Request& request, const Entities& entities) const {
  return Get()->Authorize(request, entities);
}

bool EngineHandle::Authorize(const Request& request, const Entities& entities,
                             EvalContext* context) const {
  return Get()->Authorize(request, entities, context);
}

}  // namespace charter
