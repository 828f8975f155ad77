# Use ccache automatically when it is installed (MLIR translation units are
# slow; a warm cache makes rebuilds cheap).
find_program(KB_CCACHE ccache)
if(KB_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER "${KB_CCACHE}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${KB_CCACHE}")
  message(STATUS "Kernel Workbench: using ccache (${KB_CCACHE})")
endif()
