# ckpt_add_test(NAME tst_x SOURCES a.cpp LIBS ckpt::engine LABELS engine [GUI])
# Each test is one Qt Test executable run by CTest. Tests find the real
# checkpoint corpus through CKPT_TESTDATA_REAL (default ../shared/testdata/real
# next to the source tree) and skip with a message when it is absent.
set(CKPT_TESTDATA_REAL "${PROJECT_SOURCE_DIR}/../shared/testdata/real" CACHE PATH "Real TensorFlow checkpoints")
function(ckpt_add_test)
  cmake_parse_arguments(T "GUI" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE Qt6::Test ckpt_warnings ckpt_test_support ${T_LIBS})
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  # XDG_DATA_HOME: each test's own default catalog, never the user's.
  set(env "CKPT_TESTDATA_REAL_DEFAULT=${CKPT_TESTDATA_REAL}" "CKPT_BINARY_DIR=${PROJECT_BINARY_DIR}"
          "CKPT_SOURCE_DIR=${PROJECT_SOURCE_DIR}" "XDG_DATA_HOME=${PROJECT_BINARY_DIR}/test-data/${T_NAME}")
  if(T_GUI)
    list(APPEND env "QT_QPA_PLATFORM=offscreen")
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" ENVIRONMENT "${env}" TIMEOUT ${T_TIMEOUT})
endfunction()
