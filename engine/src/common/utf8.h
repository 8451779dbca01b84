// UTF-8 helpers shared by the parsers and the diagnostics renderer.
#ifndef CHARTER_COMMON_UTF8_H_
#define CHARTER_COMMON_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace charter::internal {

// Returns the byte offset of the first invalid UTF-8 sequence, or npos.
size_t FindInvalidUtf8(std::string_view s);

// Appends the UTF-8 encoding of a Unicode scalar value.
void AppendUtf8(std::string* out, uint32_t code_point);

// Number of Unicode scalar values in valid UTF-8 text.
size_t CountScalars(std::string_view s);

}  // namespace charter::internal

#endif  // CHARTER_COMMON_UTF8_H_
