# ctest bench.governance_smoke: generates a small governance world twice (the
# same bytes both times), then checks that Charter takes it: the policies and
# the tightened set validate against the standard schema, `charter access`
# reviews a connection, `charter audit --previous` finds review triggers, and
# `charter diff` over the decision log reports changed decisions.
#   cmake -DWORKLOAD=... -DCHARTER=... -DSCHEMA=... -DOUT=DIR -P governance_smoke_test.cmake
foreach(run a b)
  file(REMOVE_RECURSE ${OUT}/${run})
  file(MAKE_DIRECTORY ${OUT}/${run})
  execute_process(COMMAND ${WORKLOAD} --projects 8 --members 200 --entities 1500 --policies 200 --requests 2000
                          --out ${OUT}/${run}
                  RESULT_VARIABLE status OUTPUT_QUIET)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "charter_governance_workload failed: ${status}")
  endif()
endforeach()
foreach(file policies.cedar tightened.cedar entities.json previous.json decision-log.jsonl)
  file(SHA256 ${OUT}/a/${file} a)
  file(SHA256 ${OUT}/b/${file} b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "${file} differs between two runs with one seed")
  endif()
endforeach()
set(W ${OUT}/a)
function(run_charter expect_in)
  execute_process(COMMAND ${CHARTER} ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0 OR NOT err STREQUAL "")
    message(FATAL_ERROR "charter ${ARGN} failed (${status}): ${err}")
  endif()
  string(FIND "${out}" "${expect_in}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "charter ${ARGN}: the output lacks `${expect_in}`:\n${out}")
  endif()
endfunction()
run_charter(": ok" check --policies ${W}/policies.cedar --schema ${SCHEMA})
run_charter(": ok" check --policies ${W}/tightened.cedar --schema ${SCHEMA})
run_charter("identity-owner-gone" access --policies ${W}/policies.cedar --entities ${W}/entities.json
            --connection p1/c2 --at 2026-01-15)
run_charter("project-ownership-changed" audit --entities ${W}/entities.json --previous ${W}/previous.json
            --at 2026-01-15)
run_charter("allow -> deny" diff --old ${W}/policies.cedar --new ${W}/tightened.cedar --entities ${W}/entities.json
            --schema ${SCHEMA} --decision-log ${W}/decision-log.jsonl)
message(STATUS "governance smoke: ok")
