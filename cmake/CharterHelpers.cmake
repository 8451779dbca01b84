# Small helpers shared by Charter's CMake files.

# Warnings for Charter's own sources (never for generated ones).
function(charter_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
    -Wnon-virtual-dtor -Wno-unused-parameter)
  if(CHARTER_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# charter_test(NAME SOURCES... [LIBS ...]): a GoogleTest executable registered
# with ctest, run from the source tree so that tests find their data. It has
# GoogleMock and the tests' shared helpers: `#include "testing/status_matchers.h"`
# (tests/testing/) for IsOk, StatusIs and IsOkAndHolds. In a RelWithDebInfo
# build (`make test`) the test's own sources compile with -O1 -g1, not -O2 -g:
# GoogleTest's expansions make them the slowest files to compile, and the
# library they test keeps its flags.
function(charter_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE $<$<CONFIG:RelWithDebInfo>:-O1 -g1>)
  target_link_libraries(${name} PRIVATE charter_internal GTest::gmock GTest::gtest GTest::gtest_main ${ARG_LIBS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${name} PRIVATE
    CHARTER_SOURCE_DIR="${PROJECT_SOURCE_DIR}" CHARTER_BINARY_DIR="${PROJECT_BINARY_DIR}")
  charter_warnings(${name})
  add_test(NAME ${name} COMMAND ${name} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endfunction()

# charter_antlr4_include_dir(OUT): the ANTLR4 runtime headers the syntax layer
# compiles against. Debian 12's 4.9 headers give dfa::Vocabulary
# `std::vector<std::string> const` members next to a defaulted default
# constructor, which clang rejects (GCC accepts). For clang (the fuzz build)
# use a copy in the build tree with those `const`s dropped: same layout, same
# ABI, so it still links against Debian's libantlr4-runtime.
function(charter_antlr4_include_dir out)
  set(dir ${ANTLR4_INCLUDE_DIR})
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(copy ${PROJECT_BINARY_DIR}/antlr4-runtime-clang)
    file(COPY ${dir}/ DESTINATION ${copy} PATTERN Vocabulary.h EXCLUDE)
    file(READ ${dir}/Vocabulary.h text)
    string(REPLACE "std::vector<std::string> const _" "std::vector<std::string> _" text "${text}")
    file(WRITE ${copy}.tmp/Vocabulary.h "${text}")
    file(COPY_FILE ${copy}.tmp/Vocabulary.h ${copy}/Vocabulary.h ONLY_IF_DIFFERENT)
    set(dir ${copy})
  endif()
  set(${out} ${dir} PARENT_SCOPE)
endfunction()
