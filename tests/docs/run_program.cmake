# Runs one program from docs/embedding.md and, when EXPECTED names a file,
# compares its standard output with that file (the ```output block after the
# program). Usage: cmake -DPROGRAM=path [-DEXPECTED=file] -P run_program.cmake
execute_process(COMMAND ${PROGRAM}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${status}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(DEFINED EXPECTED)
  file(READ ${EXPECTED} want)
  if(NOT out STREQUAL want)
    message(FATAL_ERROR "${PROGRAM}: the output differs from docs/embedding.md\n"
      "--- expected\n${want}--- actual\n${out}---")
  endif()
endif()
