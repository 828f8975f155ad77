# kb_cc_test(NAME name SRCS a.cpp ... DEPS lib ... [LABELS l ...])
#
# A gtest binary registered with ctest, one ctest case per TEST. Tests run from
# the source directory so that fixtures beside them are found by relative path
# through KB_SOURCE_DIR.
# Does nothing when KB_BUILD_TESTS is OFF, so directories can declare their
# tests unconditionally.
function(kb_cc_test)
  if(NOT KB_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "" "NAME" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SRCS})
  target_link_libraries(${T_NAME} PRIVATE ${T_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${T_NAME} PRIVATE
    KB_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    KB_BINARY_DIR="${PROJECT_BINARY_DIR}")
  if(NOT T_LABELS)
    set(T_LABELS cpu)
  endif()
  # A ';' inside PROPERTIES would split the list into separate properties.
  string(REPLACE ";" "\\;" T_LABELS "${T_LABELS}")
  gtest_discover_tests(${T_NAME}
    PROPERTIES LABELS "${T_LABELS}"
    DISCOVERY_TIMEOUT 60)
endfunction()
