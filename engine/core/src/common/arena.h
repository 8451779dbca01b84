// Arena: a bump allocator for values that live as long as their owner (an
// entity store, a request, a compiled program). Objects allocated here must
// be trivially destructible; the arena frees its blocks all at once.
#ifndef CHARTER_COMMON_ARENA_H_
#define CHARTER_COMMON_ARENA_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <type_traits>
#include <vector>

namespace charter::internal {

class Arena {
 public:
  Arena() = default;
  // An arena whose first block is `first_block` bytes (each next one twice
  // the last, up to the usual 64 KB): for owners that usually hold little,
  // such as a request's context.
  explicit Arena(size_t first_block) : next_block_(first_block < kBlockSize ? first_block : kBlockSize) {}
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  Arena(Arena&&) = default;
  Arena& operator=(Arena&&) = default;

  void* Allocate(size_t size, size_t align) {
    size_t pos = (used_ + align - 1) & ~(align - 1);
    if (blocks_.empty() || pos + size > capacity_) {
      size_t block = size + align > next_block_ ? size + align : next_block_;
      next_block_ = next_block_ * 2 < kBlockSize ? next_block_ * 2 : kBlockSize;
      blocks_.push_back(NewBlock(block));
      capacity_ = block;
      reserved_ += block;
      uintptr_t base = reinterpret_cast<uintptr_t>(blocks_.back().get());
      pos = ((base + align - 1) & ~(uintptr_t{align} - 1)) - base;
    }
    used_ = pos + size;
    bytes_ += size;
    return blocks_.back().get() + pos;
  }

  template <typename T>
  T* AllocateArray(size_t n) {
    static_assert(std::is_trivially_destructible_v<T>);
    if (n == 0) return nullptr;
    T* p = static_cast<T*>(Allocate(sizeof(T) * n, alignof(T)));
    for (size_t i = 0; i < n; ++i) new (p + i) T();
    return p;
  }

  template <typename T, typename... Args>
  T* New(Args&&... args) {
    static_assert(std::is_trivially_destructible_v<T>);
    return new (Allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
  }

  std::string_view CopyString(std::string_view s) {
    if (s.empty()) return {};
    char* p = static_cast<char*>(Allocate(s.size(), 1));
    std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }

  size_t bytes_allocated() const { return bytes_; }

  // Forgets every allocation, keeping memory for the next round: after a
  // round that needed several blocks, one block as large as all of them.
  // (An evaluation context resets its arena between requests.)
  void Reset() {
    if (blocks_.size() > 1) {
      size_t total = reserved_;
      blocks_.clear();
      blocks_.push_back(NewBlock(total));
      capacity_ = total;
      reserved_ = total;
    }
    used_ = 0;
    bytes_ = 0;
  }

 private:
  // Uninitialised (make_unique<std::byte[]> would clear it): every object is
  // constructed in place, and an entity store's or a context's first block
  // would otherwise cost a 64 KB memset.
  static std::unique_ptr<std::byte[]> NewBlock(size_t bytes) {
    return std::unique_ptr<std::byte[]>(new std::byte[bytes]);
  }

  static constexpr size_t kBlockSize = 64 * 1024;
  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  size_t capacity_ = 0;
  size_t used_ = 0;
  size_t bytes_ = 0;
  size_t reserved_ = 0;  // the sum of the blocks' sizes
  size_t next_block_ = kBlockSize;  // the size of the next block (at least)
};

}  // namespace charter::internal

#endif  // CHARTER_COMMON_ARENA_H_
