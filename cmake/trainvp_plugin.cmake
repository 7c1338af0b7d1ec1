# trainvp_add_plugin(NAME SOURCES ...): a shared library of IP blocks that `trainvp` loads at
# run time (a config's `plugins:` list or `--plugin PATH`).  Used by the installed package
# (examples/custom_ip/) and by trainvp's own tests.  The plugin links trainvp::platform and
# trainvp::ip (or, inside trainvp's build, the same targets by their build names); it must not
# link them statically, or its blocks would register into a second registry.
function(trainvp_add_plugin name)
    cmake_parse_arguments(P "" "" "SOURCES;LIBS" ${ARGN})
    add_library(${name} MODULE ${P_SOURCES})
    if(TARGET trainvp::platform)
        target_link_libraries(${name} PRIVATE trainvp::platform trainvp::ip ${P_LIBS})
    else()
        target_link_libraries(${name} PRIVATE trainvp_platform trainvp_ip ${P_LIBS})
    endif()
    # libtrainvp_*.so are already loaded by `trainvp`; the plugin's name is its file name.
    set_target_properties(${name} PROPERTIES PREFIX "" CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON
                                             CXX_EXTENSIONS OFF)
endfunction()
