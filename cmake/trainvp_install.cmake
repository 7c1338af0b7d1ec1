# `cmake --install build --prefix P` installs:
#   P/bin/trainvp                     the command
#   P/lib/libtrainvp_*.so             the platform's shared libraries (cmake/trainvp_library.cmake)
#   P/include/trainvp/...             every header, at its path from the repo root
#                                     (#include "kit/ip_module.h" works the same outside)
#   P/lib/cmake/trainvp/              the package: find_package(trainvp) -> trainvp::platform,
#                                     trainvp::ip, trainvp::codecs, ... (docs/adding-ip.md)
#   P/share/trainvp/zoo/              the model zoo (workloads/models/zoo)
#   P/share/bash-completion/completions/trainvp   bash completion (scripts/trainvp-completion.bash)
include(CMakePackageConfigHelpers)

get_property(trainvp_libraries GLOBAL PROPERTY TRAINVP_LIBRARIES)
install(TARGETS ${trainvp_libraries} EXPORT trainvpTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/trainvp)
install(TARGETS trainvp RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

foreach(dir core traces kit ip workloads platform sc_main)
    install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/trainvp/${dir}
            FILES_MATCHING PATTERN "*.h" PATTERN "zoo" EXCLUDE)
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/generated/kit/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/trainvp/kit)
install(DIRECTORY workloads/models/zoo/ DESTINATION ${CMAKE_INSTALL_DATADIR}/trainvp/zoo)
# bash-completion loads completions/<command> on first use of the command.
install(FILES scripts/trainvp-completion.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME trainvp)

set(trainvp_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/trainvp)
install(EXPORT trainvpTargets NAMESPACE trainvp:: DESTINATION ${trainvp_cmake_dir})
configure_package_config_file(cmake/trainvpConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/trainvpConfig.cmake
                              INSTALL_DESTINATION ${trainvp_cmake_dir}
                              PATH_VARS CMAKE_INSTALL_BINDIR)
# A plugin must be built against the very version it is loaded into (the ABI tag checks it).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/trainvpConfigVersion.cmake
                                 COMPATIBILITY ExactVersion)
install(FILES ${PROJECT_BINARY_DIR}/trainvpConfig.cmake
              ${PROJECT_BINARY_DIR}/trainvpConfigVersion.cmake
              cmake/trainvp_plugin.cmake
        DESTINATION ${trainvp_cmake_dir})
