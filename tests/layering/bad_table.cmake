# A stage table with one edge against the direction: core's stage `rules`
# names `cycle`, a stage of the library `upper`, which uses core. The
# configure must stop at the table's check, before it builds anything.
# (cmake -P: the check runs before any add_library, which script mode lacks.)
include(${STAGES})
file(REMOVE_RECURSE ${WORK})
foreach(dir core/src/base core/src/rules upper/src/cycle)
  file(MAKE_DIRECTORY ${WORK}/${dir})
endforeach()
charter_library(core)
charter_stage(base)
charter_stage(rules base)
charter_library(upper core)
charter_stage(cycle base)
# The bad row: a core stage that includes a stage above the core.
set_property(GLOBAL PROPERTY CHARTER_STAGE_DEPS_rules base cycle)
charter_stage_libraries(${WORK} ${WORK}/roots)
message("configured without a fault")
