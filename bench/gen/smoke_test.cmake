# ctest bench.workload_smoke: generates a small workload twice (it must be the
# same bytes both times), then has `charter bench` decide it once.
#   cmake -DWORKLOAD=... -DCHARTER=... -DOUT=DIR -P smoke_test.cmake
foreach(run a b)
  file(REMOVE_RECURSE ${OUT}/${run})
  file(MAKE_DIRECTORY ${OUT}/${run})
  execute_process(COMMAND ${WORKLOAD} --policies 300 --entities 2000 --requests 50 --seed 7
                          --out ${OUT}/${run}
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "charter_workload failed: ${status}")
  endif()
endforeach()
foreach(file policies.cedar entities.json requests.json)
  file(SHA256 ${OUT}/a/${file} a)
  file(SHA256 ${OUT}/b/${file} b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "${file} differs between two runs with one seed")
  endif()
endforeach()
execute_process(COMMAND ${CHARTER} bench --policies ${OUT}/a/policies.cedar
                        --entities ${OUT}/a/entities.json --requests ${OUT}/a/requests.json
                        --iterations 1 --format json
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0 OR NOT err STREQUAL "")
  message(FATAL_ERROR "charter bench failed (${status}): ${err}")
endif()
string(JSON requests GET "${out}" requests)
string(JSON policies GET "${out}" policies)
string(JSON entities GET "${out}" entities)
string(JSON allow GET "${out}" decisions allow)
string(JSON errors GET "${out}" decisions with_errors)
if(NOT requests EQUAL 50 OR NOT policies EQUAL 300 OR NOT entities EQUAL 2000)
  message(FATAL_ERROR "unexpected counts: ${out}")
endif()
if(allow EQUAL 0 OR allow EQUAL 50 OR NOT errors EQUAL 0)
  message(FATAL_ERROR "the workload should allow some requests, deny others, and never err: ${out}")
endif()
message(STATUS "workload smoke: ${out}")
