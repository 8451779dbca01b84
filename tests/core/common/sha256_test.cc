// SHA-256 against FIPS 180-4's examples, and across the padding boundaries.
#include "common/sha256.h"

#include <string>

#include "gtest/gtest.h"

namespace charter::internal {
namespace {

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, EveryLengthAroundABlockDiffers) {
  std::string previous;
  for (size_t n = 50; n < 140; ++n) {
    std::string digest = Sha256Hex(std::string(n, 'x'));
    EXPECT_EQ(digest.size(), 64u);
    EXPECT_NE(digest, previous) << n;
    previous = digest;
  }
}

}  // namespace
}  // namespace charter::internal
