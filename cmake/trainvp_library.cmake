# trainvp_library(TARGET): makes TARGET one of trainvp's installed libraries.
#
# The platform's libraries are SHARED, so that the `trainvp` command, the tests and IP plugins
# loaded at run time (dlopen) all use the same code and the same IP registry
# (kit/registry.h): a plugin's TRAINVP_REGISTER_IP lands in the registry the built-in
# blocks are in.  Includes spell the path from the repo root; once installed, from
# <prefix>/include/trainvp.  The library is exported as trainvp::<TARGET without "trainvp_">
# (trainvp_platform -> trainvp::platform) by the package config (cmake/trainvpConfig.cmake.in).
function(trainvp_library target)
    target_include_directories(${target} PUBLIC
        $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
        $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated>
        $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/trainvp>)
    string(REGEX REPLACE "^trainvp_" "" short ${target})
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${short})
    set_property(GLOBAL APPEND PROPERTY TRAINVP_LIBRARIES ${target})
endfunction()
