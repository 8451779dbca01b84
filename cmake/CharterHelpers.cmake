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
# with ctest, run from the source tree so that tests find their data.
function(charter_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE charter_internal GTest::gtest GTest::gtest_main ${ARG_LIBS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_definitions(${name} PRIVATE
    CHARTER_SOURCE_DIR="${PROJECT_SOURCE_DIR}" CHARTER_BINARY_DIR="${PROJECT_BINARY_DIR}")
  charter_warnings(${name})
  add_test(NAME ${name} COMMAND ${name} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endfunction()
