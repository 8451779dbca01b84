# The engine's stages as libraries whose boundaries the build enforces.
#
# Each directory engine/src/<stage>/ is one stage, and its code includes other
# stages' headers as "stage/file.h". A stage is declared with the stages it may
# include (charter_stage below); its sources compile against an include root
# of its own, ${CHARTER_STAGE_ROOT}/<stage>/, that holds a link to engine/src/
# <stage>/ and to each stage it may reach through its declared dependencies
# (they are transitive: a header of a dependency includes the headers of that
# dependency's own dependencies), and nothing else. An include of any other
# stage then fails to compile ("No such file or directory").
#
# A stage with .cc files becomes the OBJECT library charter_<stage>; a stage of
# headers only (ast/) is an include root entry and nothing more. The engine
# library is the union of the object libraries (charter_stage_objects).

# charter_stage(STAGE [DEP...]): declares STAGE and the stages it includes.
function(charter_stage stage)
  set_property(GLOBAL APPEND PROPERTY CHARTER_STAGES ${stage})
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

# charter_stage_libraries(SRC_DIR ROOT_DIR): checks the declarations against
# the directories of SRC_DIR (every directory a declared stage, every declared
# stage and dependency a directory), writes each stage's include root under
# ROOT_DIR and creates the object libraries. Sets, in the caller's scope,
# CHARTER_STAGE_OBJECTS (every stage library's objects, for the engine
# library) and CHARTER_STAGE_LIBRARIES (the object library targets).
function(charter_stage_libraries src_dir root_dir)
  get_property(stages GLOBAL PROPERTY CHARTER_STAGES)
  # CONFIGURE_DEPENDS: a new directory re-runs the configure, and its check.
  file(GLOB entries LIST_DIRECTORIES true CONFIGURE_DEPENDS RELATIVE ${src_dir} ${src_dir}/*)
  set(dirs "")
  foreach(entry IN LISTS entries)
    if(IS_DIRECTORY ${src_dir}/${entry})
      list(APPEND dirs ${entry})
    elseif(entry MATCHES "\\.(cc|h)$")
      message(FATAL_ERROR "engine/src/${entry} belongs to no stage: engine code lives in "
        "engine/src/<stage>/ (see the stage table in engine/CMakeLists.txt)")
    endif()
  endforeach()
  foreach(dir IN LISTS dirs)
    if(NOT dir IN_LIST stages)
      message(FATAL_ERROR "engine/src/${dir}/ is a stage that engine/CMakeLists.txt does not "
        "declare. Add a row to the stage table there, `charter_stage(${dir} <stages it "
        "includes>...)`, naming every stage whose headers engine/src/${dir}/ includes; until "
        "then its includes would not resolve.")
    endif()
  endforeach()
  set(above "")
  foreach(stage IN LISTS stages)
    if(NOT IS_DIRECTORY ${src_dir}/${stage})
      message(FATAL_ERROR "the stage table in engine/CMakeLists.txt declares `${stage}`, "
        "but there is no engine/src/${stage}/")
    endif()
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
    endforeach()
    list(APPEND above ${stage})
  endforeach()

  set(objects "")
  set(libraries "")
  foreach(stage IN LISTS stages)
    # The include root: a link per reachable stage; links to stages that are
    # no longer reachable are removed (REMOVE_RECURSE removes a link, never
    # what it points to).
    charter_stage_closure(${stage} reach)
    set(root ${root_dir}/${stage})
    file(MAKE_DIRECTORY ${root})
    file(GLOB present LIST_DIRECTORIES true RELATIVE ${root} ${root}/*)
    foreach(name IN LISTS present)
      if(NOT name IN_LIST reach)
        file(REMOVE_RECURSE ${root}/${name})
      endif()
    endforeach()
    foreach(name IN LISTS reach)
      if(NOT IS_SYMLINK ${root}/${name})
        file(CREATE_LINK ${src_dir}/${name} ${root}/${name} SYMBOLIC)
      endif()
    endforeach()

    file(GLOB sources CONFIGURE_DEPENDS ${src_dir}/${stage}/*.cc)
    if(NOT sources)
      continue()  # headers only
    endif()
    add_library(charter_${stage} OBJECT ${sources})
    target_include_directories(charter_${stage} PRIVATE ${root})
    set_property(TARGET charter_${stage} PROPERTY CHARTER_STAGE_ROOT ${root})
    list(APPEND objects $<TARGET_OBJECTS:charter_${stage}>)
    list(APPEND libraries charter_${stage})
  endforeach()
  set(CHARTER_STAGE_OBJECTS ${objects} PARENT_SCOPE)
  set(CHARTER_STAGE_LIBRARIES ${libraries} PARENT_SCOPE)
endfunction()
