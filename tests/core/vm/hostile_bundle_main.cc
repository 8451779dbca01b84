// Writes a hostile bundle for the CLI tests (hostile_bundle_test.sh): code
// no compiler writes, which the verifier accepts.
//
//   hostile_bundle nested-sets DEPTH OUT   sets nested DEPTH deep, compared
//   hostile_bundle set-flood COUNT OUT     COUNT MakeSets of 255 registers
//   hostile_bundle shared-sets LEVELS OUT  sets sharing elements, 2^LEVELS as a tree
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "tests/core/vm/hand_made.h"

int main(int argc, char** argv) {
  using namespace charter::internal::testing;
  if (argc != 4) {
    std::cerr << "usage: hostile_bundle nested-sets|set-flood|shared-sets N OUT\n";
    return 2;
  }
  std::string kind = argv[1];
  uint32_t n = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
  HandMadeBundle b;
  if (kind == "nested-sets") {
    b = NestedSets(n);
  } else if (kind == "set-flood") {
    b = SetFlood(n);
  } else if (kind == "shared-sets") {
    b = SharedSets(n);
  } else {
    std::cerr << "hostile_bundle: unknown kind " << kind << "\n";
    return 2;
  }
  std::ofstream out(argv[3], std::ios::binary);
  std::string bytes = b.Build();
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return out ? 0 : 1;
}
