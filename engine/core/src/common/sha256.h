// SHA-256 (FIPS 180-4), for fingerprints: a bundle records the fingerprint
// of the schema it was compiled against.
#ifndef CHARTER_COMMON_SHA256_H_
#define CHARTER_COMMON_SHA256_H_

#include <string>
#include <string_view>

namespace charter::internal {

// The digest of `data` as 64 lowercase hex digits.
std::string Sha256Hex(std::string_view data);

}  // namespace charter::internal

#endif  // CHARTER_COMMON_SHA256_H_
