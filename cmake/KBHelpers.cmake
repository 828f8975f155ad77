# kb_cc_test(NAME name SRCS a.cpp ... DEPS lib ... [LABELS l ...] [SERIAL]
#            [SERIAL_MATCHING regex])
#
# SERIAL: every case runs alone (ctest RUN_SERIAL); SERIAL_MATCHING: the
# cases whose name matches |regex|. For tests that compare timings or give
# a worker a deadline: on a 2-core machine a neighbouring test makes
# lavapipe's small dispatches 10x slower, which no threshold tells from a
# real regression.
# A gtest binary registered with ctest, one ctest case per TEST. Tests run from
# the source directory so that fixtures beside them are found by relative path
# through KB_SOURCE_DIR.
# Does nothing when KB_BUILD_TESTS is OFF, so directories can declare their
# tests unconditionally.
function(kb_cc_test)
  if(NOT KB_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "SERIAL" "NAME;SERIAL_MATCHING" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SRCS})
  target_link_libraries(${T_NAME} PRIVATE ${T_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${T_NAME} PRIVATE
    KB_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    KB_BINARY_DIR="${PROJECT_BINARY_DIR}")
  if(NOT T_LABELS)
    set(T_LABELS cpu)
  endif()
  gtest_discover_tests(${T_NAME}
    TEST_PREFIX "${T_NAME}."
    TEST_LIST ${T_NAME}_TESTS
    DISCOVERY_TIMEOUT 60)
  # Labels are set by a ctest include file of our own, read after the one
  # gtest_discover_tests registers (which defines ${T_NAME}_TESTS): CMake
  # 3.25's discovery script splits a list passed through PROPERTIES into
  # separate arguments, so LABELS "a;b" kept only `a` (escaping the `;` does
  # not survive either).
  set(serial "")
  if(T_SERIAL)
    set(serial " RUN_SERIAL TRUE")
  endif()
  set(labels_file "${CMAKE_CURRENT_BINARY_DIR}/${T_NAME}_labels.cmake")
  set(serial_matching "")
  if(T_SERIAL_MATCHING)
    string(CONCAT serial_matching
      "  foreach(t IN LISTS ${T_NAME}_TESTS)\n"
      "    if(t MATCHES \"${T_SERIAL_MATCHING}\")\n"
      "      set_tests_properties(\${t} PROPERTIES RUN_SERIAL TRUE)\n"
      "    endif()\n"
      "  endforeach()\n")
  endif()
  file(WRITE "${labels_file}"
    "if(DEFINED ${T_NAME}_TESTS)\n"
    "  set_tests_properties(\${${T_NAME}_TESTS} PROPERTIES LABELS \"${T_LABELS}\"${serial})\n"
    "${serial_matching}"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_file}")
endfunction()
