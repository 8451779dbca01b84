// Which dispatch the linked VM uses: vm_switch_test links the switch VM (and
// runs the evaluation tests of tests/core/api/ with it), vm_goto_test the
// library's computed-goto VM.
#include "gtest/gtest.h"
#include "vm/vm.h"

namespace charter::internal {
namespace {

TEST(Dispatch, IsTheOneThisBinaryWasBuiltWith) {
  EXPECT_STREQ(DispatchKind(), CHARTER_EXPECT_DISPATCH);
}

}  // namespace
}  // namespace charter::internal
