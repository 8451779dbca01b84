cmake_minimum_required(VERSION 3.25)
# A stage table with one edge against the direction: `view`, a stage of the
# library `side`, names `cycle`, a stage of `upper`, a library `side` does
# not use (as tools may not include scheduling, nor scheduling the tools).
# The configure must stop at the table's check, before it builds anything.
# (cmake -P: the check runs before any add_library, which script mode lacks.
# An edge from core up is refused already by the order of the table: a stage
# names only stages above it, and core is declared first.)
include(${STAGES})
file(REMOVE_RECURSE ${WORK})
foreach(dir core/src/base upper/src/cycle side/src/view)
  file(MAKE_DIRECTORY ${WORK}/${dir})
endforeach()
charter_library(core)
charter_stage(base)
charter_library(upper core)
charter_stage(cycle base)
charter_library(side core)
charter_stage(view base cycle)
charter_stage_libraries(${WORK} ${WORK}/roots)
message("configured without a fault")
