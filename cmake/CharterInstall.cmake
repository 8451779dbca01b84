# Install rules: the `charter` library (static unless BUILD_SHARED_LIBS), its
# public headers, the `charter` command, the standard governance model
# (stdlib/, into share/charter/stdlib/), and the package files that let a user
# write
#
#   find_package(charter REQUIRED)
#   target_link_libraries(app PRIVATE charter::charter)
#
# Included at the end of the root CMakeLists.txt, once every target exists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CHARTER_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/charter CACHE STRING
  "Where the charter package configuration files are installed, relative to the prefix")
# Generated public headers (version.h); engine/CMakeLists.txt writes them here.
set(CHARTER_INSTALL_GEN_DIR ${PROJECT_BINARY_DIR}/engine/gen)

# The export name makes the installed target charter::charter, like the alias
# that in-tree users link.
# The engine's three libraries install as charter::core, charter::schedule and
# charter::tools (their EXPORT_NAMEs).
set_target_properties(charter PROPERTIES EXPORT_NAME charter)
install(TARGETS charter charter_core charter_scheduling charter_tools EXPORT charterTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT charter_development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT charter_runtime
          NAMELINK_COMPONENT charter_development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT charter_runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

if(TARGET charter_shared)
  set_target_properties(charter_shared PROPERTIES EXPORT_NAME charter_shared)
  install(TARGETS charter_shared EXPORT charterTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT charter_runtime
            NAMELINK_COMPONENT charter_development
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()

# The C API's header, beside the C++ headers' directory: #include <charter.h>.
install(FILES ${PROJECT_SOURCE_DIR}/bindings/c/include/charter.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT charter_development)

# pkg-config's charter.pc, relocatable: it finds the prefix from its own
# place (${pcfiledir}), so that `cmake --install --prefix P` works for any P.
set(CHARTER_INSTALL_PKGCONFIGDIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH CHARTER_PC_PREFIX_FROM_PCDIR /charter-prefix/${CHARTER_INSTALL_PKGCONFIGDIR} /charter-prefix)
configure_file(${PROJECT_SOURCE_DIR}/bindings/c/charter.pc.in ${PROJECT_BINARY_DIR}/charter.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/charter.pc
  DESTINATION ${CHARTER_INSTALL_PKGCONFIGDIR} COMPONENT charter_development)

# The prover (charter/prove.h, the charter_prover library that links Z3) is
# the CLI's for now and is not installed: its header stays out too.
foreach(library IN ITEMS core schedule tools)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/engine/${library}/include/charter
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT charter_development
    FILES_MATCHING PATTERN "*.h" PATTERN "prove.h" EXCLUDE)
endforeach()
install(FILES ${CHARTER_INSTALL_GEN_DIR}/charter/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/charter COMPONENT charter_development)

# The standard governance model; find_package(charter) sets charter_STDLIB_DIR
# to where it is installed.
set(CHARTER_INSTALL_STDLIB_DIR share/charter/stdlib)  # relative: the package config finds it under its own prefix
install(DIRECTORY ${PROJECT_SOURCE_DIR}/stdlib/
  DESTINATION ${CHARTER_INSTALL_STDLIB_DIR} COMPONENT charter_runtime)

if(TARGET charter_cli)
  install(TARGETS charter_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT charter_runtime)
endif()

install(EXPORT charterTargets
  NAMESPACE charter::
  FILE charterTargets.cmake
  DESTINATION ${CHARTER_INSTALL_CMAKEDIR}
  COMPONENT charter_development)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/charterConfig.cmake.in
  ${PROJECT_BINARY_DIR}/charterConfig.cmake
  INSTALL_DESTINATION ${CHARTER_INSTALL_CMAKEDIR}
  PATH_VARS CHARTER_INSTALL_STDLIB_DIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/charterConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMajorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/charterConfig.cmake
  ${PROJECT_BINARY_DIR}/charterConfigVersion.cmake
  DESTINATION ${CHARTER_INSTALL_CMAKEDIR}
  COMPONENT charter_development)
