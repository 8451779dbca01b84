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

# charter_link_abseil_statically(TARGET): links the abseil a program uses
# from Debian's static archives (built position-independent for programs,
# not for shared libraries): each archive of an imported abseil library
# (find_package(absl)) goes on TARGET's link line ahead of the shared
# libraries its dependencies bring, and --as-needed drops those, so the
# program maps none of them at start-up. For programs only.
function(charter_link_abseil_statically target)
  get_property(imported DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTY IMPORTED_TARGETS)
  set(archives)
  foreach(lib IN LISTS imported)
    if(NOT lib MATCHES "^absl::")
      continue()
    endif()
    get_target_property(type ${lib} TYPE)
    if(NOT type STREQUAL "SHARED_LIBRARY")
      continue()
    endif()
    get_target_property(location ${lib} IMPORTED_LOCATION_NONE)
    if(NOT location)
      get_target_property(location ${lib} IMPORTED_LOCATION)
    endif()
    string(REGEX REPLACE "\\.so(\\.[0-9.]+)?$" ".a" archive "${location}")
    if(location AND NOT archive STREQUAL location AND EXISTS "${archive}")
      list(APPEND archives "${archive}")
    endif()
  endforeach()
  if(NOT archives)
    return()
  endif()
  list(JOIN archives "," joined)
  target_link_options(${target} PRIVATE "LINKER:--as-needed")
  target_link_libraries(${target} PRIVATE "-Wl,--start-group" ${archives} "-Wl,--end-group")
  list(LENGTH archives count)
  message(STATUS "${target}: abseil from ${count} static archives")
endfunction()
