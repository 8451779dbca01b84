# The engine's libraries and their stages, with boundaries the build enforces.
#
# The engine is three libraries, each a directory engine/<library>/ with its
# public headers in include/charter/ and its stages in src/<stage>/:
#   core      policy text to bundle to decision;
#   schedule  Kueue's model and cycle, its formats, its rules and the
#             scheduling declarations (uses core);
#   tools     explain, format, query, the governance reviews, disassembly
#             (uses core).
# A library is declared with the libraries it uses (charter_library); the
# stages declared after it are its own (charter_stage). A stage's code
# includes other stages' headers as "stage/file.h" and the public headers as
# "charter/file.h". Its sources compile against an include root of its own,
# ${CHARTER_STAGE_ROOT}/<stage>/, that holds a link to its directory and to
# each stage it may reach through its declared dependencies (they are
# transitive: a header of a dependency includes the headers of that
# dependency's own dependencies), and nothing else, and against the public
# headers of its own library and the libraries it uses, and no other. An
# include of any other stage's or library's header then fails to compile
# ("No such file or directory"): core cannot include a scheduling or tools
# header, and schedule and tools cannot include each other's.
#
# A stage with .cc files becomes the OBJECT library charter_<stage>; a stage
# of headers only (ast/) is an include root entry and nothing more. Each
# library is the union of its stages' object libraries.

# charter_library(LIBRARY [USES...]): declares LIBRARY, in engine/LIBRARY/,
# and the libraries whose stages and headers its stages may include; the
# stages declared after it, until the next charter_library, are its own.
function(charter_library library)
  get_property(libraries GLOBAL PROPERTY CHARTER_LIBRARIES)
  foreach(used IN LISTS ARGN)
    if(NOT used IN_LIST libraries)
      message(FATAL_ERROR "library `${library}` uses `${used}`, which the stage table in "
        "engine/CMakeLists.txt does not declare above it: a library uses only libraries "
        "declared before it, so that no two libraries use each other")
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY CHARTER_LIBRARIES ${library})
  set_property(GLOBAL PROPERTY CHARTER_LIBRARY_USES_${library} ${ARGN})
  set_property(GLOBAL PROPERTY CHARTER_CURRENT_LIBRARY ${library})
endfunction()

# charter_stage(STAGE [DEP...]): declares STAGE, of the library declared last,
# and the stages it includes.
function(charter_stage stage)
  get_property(library GLOBAL PROPERTY CHARTER_CURRENT_LIBRARY)
  if(NOT library)
    message(FATAL_ERROR "stage `${stage}` is declared before any charter_library()")
  endif()
  set_property(GLOBAL APPEND PROPERTY CHARTER_STAGES ${stage})
  set_property(GLOBAL APPEND PROPERTY CHARTER_STAGES_OF_${library} ${stage})
  set_property(GLOBAL PROPERTY CHARTER_STAGE_LIBRARY_${stage} ${library})
  set_property(GLOBAL PROPERTY CHARTER_STAGE_DEPS_${stage} ${ARGN})
endfunction()

# The transitive closure of STAGE's declared dependencies, STAGE included.
function(charter_stage_closure stage out)
  set(seen ${stage})
  set(work ${stage})
  while(work)
    list(POP_FRONT work current)
    get_property(deps GLOBAL PROPERTY CHARTER_STAGE_DEPS_${current})
    foreach(dep IN LISTS deps)
      if(NOT dep IN_LIST seen)
        list(APPEND seen ${dep})
        list(APPEND work ${dep})
      endif()
    endforeach()
  endwhile()
  list(SORT seen)
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

# charter_stage_libraries(ENGINE_DIR ROOT_DIR): checks the declarations
# against the directories of ENGINE_DIR/<library>/src (every directory a
# declared stage of that library, every declared stage a directory, every
# dependency a stage above it of its own library or of a library it uses),
# writes each stage's include root under ROOT_DIR and creates the object
# libraries. Sets, in the caller's scope, for each LIBRARY (upper case):
# CHARTER_<LIBRARY>_OBJECTS (its stages' objects) and
# CHARTER_<LIBRARY>_STAGE_LIBRARIES (the object library targets); and
# CHARTER_STAGE_LIBRARIES, every object library target.
function(charter_stage_libraries engine_dir root_dir)
  # (A script, cmake -P, checks a table without configuring: tests/layering/.)
  set(configure_depends CONFIGURE_DEPENDS)
  if(CMAKE_SCRIPT_MODE_FILE)
    set(configure_depends "")
  endif()
  get_property(libraries GLOBAL PROPERTY CHARTER_LIBRARIES)
  get_property(stages GLOBAL PROPERTY CHARTER_STAGES)
  foreach(library IN LISTS libraries)
    set(src_dir ${engine_dir}/${library}/src)
    get_property(own GLOBAL PROPERTY CHARTER_STAGES_OF_${library})
    # CONFIGURE_DEPENDS: a new directory re-runs the configure, and its check.
    file(GLOB entries LIST_DIRECTORIES true ${configure_depends} RELATIVE ${src_dir} ${src_dir}/*)
    foreach(entry IN LISTS entries)
      if(IS_DIRECTORY ${src_dir}/${entry})
        if(NOT entry IN_LIST own)
          message(FATAL_ERROR "engine/${library}/src/${entry}/ is a stage that engine/CMakeLists.txt does "
            "not declare in library `${library}`. Add a row to the stage table there, after "
            "charter_library(${library} ...): `charter_stage(${entry} <stages it includes>...)`, "
            "naming every stage whose headers engine/${library}/src/${entry}/ includes; until then "
            "its includes would not resolve.")
        endif()
      elseif(entry MATCHES "\\.(cc|h)$")
        message(FATAL_ERROR "engine/${library}/src/${entry} belongs to no stage: engine code lives in "
          "engine/<library>/src/<stage>/ (see the stage table in engine/CMakeLists.txt)")
      endif()
    endforeach()
  endforeach()

  set(above "")
  foreach(stage IN LISTS stages)
    get_property(library GLOBAL PROPERTY CHARTER_STAGE_LIBRARY_${stage})
    if(NOT IS_DIRECTORY ${engine_dir}/${library}/src/${stage})
      message(FATAL_ERROR "the stage table in engine/CMakeLists.txt declares `${stage}` in library "
        "`${library}`, but there is no engine/${library}/src/${stage}/")
    endif()
    get_property(uses GLOBAL PROPERTY CHARTER_LIBRARY_USES_${library})
    get_property(deps GLOBAL PROPERTY CHARTER_STAGE_DEPS_${stage})
    foreach(dep IN LISTS deps)
      if(NOT dep IN_LIST stages)
        message(FATAL_ERROR "stage `${stage}` depends on `${dep}`, which the stage table in "
          "engine/CMakeLists.txt does not declare")
      endif()
      # Each stage names only stages above it in the table: the table is then
      # an order of the stages, and their includes form no cycle.
      if(NOT dep IN_LIST above)
        message(FATAL_ERROR "stage `${stage}` depends on `${dep}`, which the stage table in "
          "engine/CMakeLists.txt declares below it (or is `${stage}` itself): a stage may "
          "include only stages above it, so that no two stages include each other")
      endif()
      # And only stages of its own library or of a library it uses: core
      # knows neither scheduling nor the tools, and they know each other not.
      get_property(dep_library GLOBAL PROPERTY CHARTER_STAGE_LIBRARY_${dep})
      if(NOT dep_library STREQUAL library AND NOT dep_library IN_LIST uses)
        message(FATAL_ERROR "stage `${stage}` of library `${library}` depends on `${dep}` of library "
          "`${dep_library}`, which `${library}` does not use: the libraries go one way "
          "(charter_library(${library} ${uses}) in engine/CMakeLists.txt)")
      endif()
    endforeach()
    list(APPEND above ${stage})
  endforeach()

  set(all_libraries "")
  foreach(library IN LISTS libraries)
    string(TOUPPER ${library} upper)
    get_property(own GLOBAL PROPERTY CHARTER_STAGES_OF_${library})
    get_property(uses GLOBAL PROPERTY CHARTER_LIBRARY_USES_${library})
    # The public headers a stage of this library sees: its own library's
    # and those of the libraries it uses.
    set(public ${engine_dir}/${library}/include)
    foreach(used IN LISTS uses)
      list(APPEND public ${engine_dir}/${used}/include)
    endforeach()
    set(objects "")
    set(targets "")
    foreach(stage IN LISTS own)
      # The include root: a link per reachable stage; links to stages that
      # are no longer reachable are removed (REMOVE_RECURSE removes a link,
      # never what it points to), and so are links to a stage's old place.
      charter_stage_closure(${stage} reach)
      set(root ${root_dir}/${stage})
      file(MAKE_DIRECTORY ${root})
      file(GLOB present LIST_DIRECTORIES true RELATIVE ${root} ${root}/*)
      foreach(name IN LISTS present)
        get_property(name_library GLOBAL PROPERTY CHARTER_STAGE_LIBRARY_${name})
        if(NOT name IN_LIST reach OR NOT IS_DIRECTORY ${root}/${name})
          file(REMOVE_RECURSE ${root}/${name})
        else()
          file(READ_SYMLINK ${root}/${name} target)
          if(NOT target STREQUAL ${engine_dir}/${name_library}/src/${name})
            file(REMOVE_RECURSE ${root}/${name})
          endif()
        endif()
      endforeach()
      foreach(name IN LISTS reach)
        if(NOT IS_SYMLINK ${root}/${name})
          get_property(name_library GLOBAL PROPERTY CHARTER_STAGE_LIBRARY_${name})
          file(CREATE_LINK ${engine_dir}/${name_library}/src/${name} ${root}/${name} SYMBOLIC)
        endif()
      endforeach()

      file(GLOB sources CONFIGURE_DEPENDS ${engine_dir}/${library}/src/${stage}/*.cc)
      if(NOT sources)
        continue()  # headers only
      endif()
      add_library(charter_${stage} OBJECT ${sources})
      target_include_directories(charter_${stage} PRIVATE ${root} ${public})
      set_property(TARGET charter_${stage} PROPERTY CHARTER_STAGE_ROOT ${root})
      list(APPEND objects $<TARGET_OBJECTS:charter_${stage}>)
      list(APPEND targets charter_${stage})
    endforeach()
    set(CHARTER_${upper}_OBJECTS ${objects} PARENT_SCOPE)
    set(CHARTER_${upper}_STAGE_LIBRARIES ${targets} PARENT_SCOPE)
    list(APPEND all_libraries ${targets})
  endforeach()
  set(CHARTER_STAGE_LIBRARIES ${all_libraries} PARENT_SCOPE)
endfunction()
