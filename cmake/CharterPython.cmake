# charter_find_python(OUT): finds what the Python module (bindings/python/)
# needs, Python 3's interpreter and headers, quietly, and sets OUT to
# whether both are there. A macro: the package's variables (Python3_*) stay
# set for bindings/python/. The module is C over the C API: it needs no
# binding generator.
#
# The interpreter is Debian's /usr/bin/python3 unless Python3_EXECUTABLE
# says otherwise: the python3 first on PATH (pyenv's, a virtualenv's) may be
# another version, without Debian's dist-packages.
macro(charter_find_python out)
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python the module is built for")
  endif()
  find_package(Python3 3.8 QUIET COMPONENTS Interpreter Development.Module)
  set(${out} OFF)
  if(Python3_FOUND)
    set(${out} ON)
  endif()
endmacro()
