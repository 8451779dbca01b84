# charter_find_python(OUT): finds what the Python module (bindings/python/)
# needs, Python 3's interpreter and headers and pybind11, quietly, and sets
# OUT to whether all of them are there. A macro: the packages' variables
# (Python3_*, pybind11_*) stay set for bindings/python/.
#
# The interpreter is Debian's /usr/bin/python3 unless Python3_EXECUTABLE
# says otherwise: the python3 first on PATH (pyenv's, a virtualenv's) may be
# another version, without pybind11 or Debian's dist-packages. Python3 is
# found before pybind11, so that pybind11 uses it (its FindPython mode).
macro(charter_find_python out)
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python the module is built for")
  endif()
  find_package(Python3 3.8 QUIET COMPONENTS Interpreter Development.Module)
  set(${out} OFF)
  if(Python3_FOUND)
    find_package(pybind11 2.6 QUIET CONFIG)
    if(pybind11_FOUND)
      set(${out} ON)
    endif()
  endif()
endmacro()
