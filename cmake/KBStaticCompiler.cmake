# KB_STATIC_COMPILER: LLVM and MLIR linked from Debian's static libraries
# into libKBCompiler.so, so that the compiler needs no LLVM 16 where it runs
# and travels to a GPU host beside a runtime-only-sized kernel-bench (the
# shared libLLVM-16/libMLIR with what they load are ~270 MB; this library is
# a few tens). Included by the top-level CMakeLists.txt, which checks the C++
# compiler here before anything else; compiler/CMakeLists.txt then calls
# kb_link_llvm_statically() after find_package(MLIR), which sets
# KB_LLVM_LIBS and KB_MLIR_LIBS for the compiler's targets.
#
# Clang 16 only. Debian builds MLIR with Clang; GCC and Clang lay out lambda
# closures differently, so GCC objects statically linked with Clang's MLIR
# archives collide on the weak copies of header-inline templates and one
# side crashes (why the default build links the shared libraries).
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang"
   OR NOT CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 16
   OR CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 17)
  message(FATAL_ERROR
    "KB_STATIC_COMPILER needs Clang 16, the compiler Debian's MLIR 16 static "
    "libraries are built with (this is ${CMAKE_CXX_COMPILER_ID} "
    "${CMAKE_CXX_COMPILER_VERSION}). Configure a fresh build directory with "
    "CC=clang-16 CXX=clang++-16 (Debian package clang-16), or drop "
    "-DKB_STATIC_COMPILER=ON.")
endif()
if(NOT KB_ENABLE_COMPILER)
  message(FATAL_ERROR "KB_STATIC_COMPILER links the compiler statically: it "
                      "needs KB_ENABLE_COMPILER=ON.")
endif()

macro(kb_link_llvm_statically)
  # LLVMSupport's link interface names zstd's CMake target, which Debian's
  # libzstd-dev does not provide (the shared libLLVM hid it); the runtime
  # library will do when libzstd-dev is not installed.
  if(NOT TARGET zstd::libzstd_shared)
    find_library(KB_ZSTD_LIBRARY NAMES zstd libzstd.so.1 REQUIRED)
    add_library(zstd::libzstd_shared SHARED IMPORTED GLOBAL)
    set_target_properties(zstd::libzstd_shared PROPERTIES
      IMPORTED_LOCATION ${KB_ZSTD_LIBRARY})
  endif()

  # add_llvm_library's LINK_COMPONENTS then name static component libraries.
  set(LLVM_LINK_LLVM_DYLIB OFF)

  # Every static LLVM component, standing in for the shared LLVM target that
  # MLIR's static libraries name in their link interface. The linker takes from
  # an archive only the members something refers to. Left out: tools' libraries
  # whose link interfaces name packages we do not have (libedit, libxml2, curl)
  # or libraries Debian does not ship (Polly, through Extensions and LTO).
  set(kb_llvm_static "")
  set(kb_llvm_unused "^LLVM(LineEditor|WindowsManifest|Debuginfod|FuzzerCLI|FuzzMutate|TableGen.*|FileCheck|Exegesis.*|Extensions|LTO|BOLT.*|CFIVerify|Diff)$")
  foreach(lib IN LISTS LLVM_AVAILABLE_LIBS)
    if(TARGET ${lib} AND NOT lib MATCHES "${kb_llvm_unused}")
      get_target_property(type ${lib} TYPE)
      get_target_property(file ${lib} LOCATION)
      # Polly is exported but not packaged.
      if(type STREQUAL "STATIC_LIBRARY" AND EXISTS "${file}")
        list(APPEND kb_llvm_static ${lib})
      endif()
    endif()
  endforeach()
  add_library(kb_llvm_static INTERFACE)
  target_link_libraries(kb_llvm_static INTERFACE ${kb_llvm_static})

  get_property(kb_mlir_all GLOBAL PROPERTY MLIR_ALL_LIBS)
  set(KB_MLIR_LIBS "")
  foreach(lib IN LISTS kb_mlir_all)
    if(NOT TARGET ${lib})
      continue()
    endif()
    get_target_property(type ${lib} TYPE)
    if(NOT type STREQUAL "STATIC_LIBRARY")
      continue()
    endif()
    list(APPEND KB_MLIR_LIBS ${lib})
    get_target_property(deps ${lib} INTERFACE_LINK_LIBRARIES)
    if(deps)
      list(TRANSFORM deps REPLACE "^LLVM$" kb_llvm_static)
      set_target_properties(${lib} PROPERTIES INTERFACE_LINK_LIBRARIES "${deps}")
    endif()
  endforeach()
  set(KB_LLVM_LIBS kb_llvm_static)

  # Only what is used is kept; libraries referred to by archive members that
  # were not taken (libz3, libxml2) are not recorded as needed.
  add_link_options(-Wl,--gc-sections -Wl,--as-needed)
  message(STATUS "Kernel Workbench compiler: LLVM and MLIR linked statically "
                 "(${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION})")
endmacro()
