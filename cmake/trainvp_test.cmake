# Helpers for declaring test executables.  Every TEST runs in its own process
# (gtest_discover_tests PRE_TEST discovery), because SystemC elaborates once per process.
include(GoogleTest)

# trainvp_add_test(NAME n SOURCES ... LIBS ... LABEL unit|integration|validation [SYSTEMC]
#                  [TIMEOUT seconds])
# Pure C++ tests (no SYSTEMC flag) link GTest's own main.  SystemC tests link
# tests/support's sc_main, because libsystemc.so defines main() itself.
function(trainvp_add_test)
    cmake_parse_arguments(T "SYSTEMC" "NAME;LABEL;TIMEOUT" "SOURCES;LIBS" ${ARGN})
    add_executable(${T_NAME} ${T_SOURCES})
    target_link_libraries(${T_NAME} PRIVATE ${T_LIBS})
    if(T_SYSTEMC)
        target_link_libraries(${T_NAME} PRIVATE trainvp_test_main GTest::gtest)
    else()
        target_link_libraries(${T_NAME} PRIVATE GTest::gtest_main)
    endif()
    target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR})
    if(NOT T_LABEL)
        set(T_LABEL unit)
    endif()
    set(extra)
    if(T_TIMEOUT)
        set(extra TIMEOUT ${T_TIMEOUT})
    endif()
    gtest_discover_tests(${T_NAME}
        DISCOVERY_MODE PRE_TEST
        WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
        PROPERTIES LABELS ${T_LABEL}
                   ENVIRONMENT "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1"
                   ${extra})
endfunction()
