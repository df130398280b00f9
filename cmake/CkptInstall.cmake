# What `cmake --install` lays out and how CPack splits it into packages
# (packaging/README.md). Components:
#   engine  libckpt-engine.so.0                        -> libckpt-engine0
#   dev     headers, .so link, CMake package           -> libckpt-engine-dev
#   cli     ckpt, its man page and completion          -> ckpt
#   gui     ckpt-explorer, desktop entry, icons, man   -> ckpt-explorer
# packaging/CMakeLists.txt installs the desktop, man and completion files.
include(CMakePackageConfigHelpers)

set(CKPT_CMAKE_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/CkptEngine)
install(TARGETS ckpt_engine EXPORT CkptEngineTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT engine NAMELINK_COMPONENT dev)
install(DIRECTORY engine/include/ckpt DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(EXPORT CkptEngineTargets NAMESPACE ckpt:: DESTINATION ${CKPT_CMAKE_PACKAGE_DIR} COMPONENT dev)
configure_package_config_file(cmake/CkptEngineConfig.cmake.in ${PROJECT_BINARY_DIR}/CkptEngineConfig.cmake
  INSTALL_DESTINATION ${CKPT_CMAKE_PACKAGE_DIR})
# Before 1.0 a minor release may change the API: only the same minor matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/CkptEngineConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/CkptEngineConfig.cmake ${PROJECT_BINARY_DIR}/CkptEngineConfigVersion.cmake
  DESTINATION ${CKPT_CMAKE_PACKAGE_DIR} COMPONENT dev)

install(TARGETS ckpt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
if(TARGET ckpt-explorer)
  install(TARGETS ckpt-explorer RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT gui)
endif()

# Debian wants a copyright file and a changelog in every package's doc
# directory, the changelog compressed reproducibly (gzip -n: no name, no time).
set(CKPT_DEB_RELEASE 1)
set(CKPT_DEB_VERSION ${PROJECT_VERSION}-${CKPT_DEB_RELEASE})
set(CKPT_PACKAGES engine libckpt-engine0 dev libckpt-engine-dev cli ckpt)
if(TARGET ckpt-explorer)
  list(APPEND CKPT_PACKAGES gui ckpt-explorer)
endif()
find_program(CKPT_GZIP gzip REQUIRED)
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/packaging
  COMMAND ${CKPT_GZIP} -9nc ${PROJECT_SOURCE_DIR}/packaging/debian/changelog > ${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/debian/changelog VERBATIM)
add_custom_target(ckpt_debian_changelog ALL DEPENDS ${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz)
while(CKPT_PACKAGES)
  list(POP_FRONT CKPT_PACKAGES component package)
  install(FILES packaging/debian/copyright ${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package} COMPONENT ${component})
  string(TOUPPER ${component} upper)
  set(CPACK_DEBIAN_${upper}_PACKAGE_NAME ${package})
endwhile()

set(CPACK_PACKAGE_NAME ckpt-explorer)
set(CPACK_PACKAGE_VENDOR "ckpt-explorer developers")
# The Maintainer field of the .deb files: set it to whoever publishes them.
set(CKPT_PACKAGE_MAINTAINER "ckpt-explorer developers <ckpt-explorer@example.org>" CACHE STRING
  "Maintainer (name <email>) written into the Debian packages")
set(CPACK_PACKAGE_CONTACT "${CKPT_PACKAGE_MAINTAINER}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB TGZ)
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
  WORLD_READ WORLD_EXECUTE)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)

# Each package's own first description line is its synopsis: an empty
# summary keeps CPack from putting the project's in front of it.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "")
# The .tar.gz is one tree with everything; the .deb files are one per component.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${CKPT_DEB_RELEASE})
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Our own library, for dpkg-shlibdeps to resolve ckpt's and ckpt-explorer's
# NEEDED entry; the dependency on its package is written out below, as the
# build tree has no shlibs file for it.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/engine)
# A shlibs file for the library (only its package has one), and the
# ldconfig trigger Debian expects; CPack 3.25 writes no triggers file.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_ENGINE_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/debian/triggers)
set(CPACK_DEBIAN_ENGINE_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION science)
set(CPACK_DEBIAN_GUI_PACKAGE_SECTION science)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libckpt-engine0 (= ${CKPT_DEB_VERSION})")
set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "libckpt-engine0 (= ${CKPT_DEB_VERSION})")
set(CPACK_DEBIAN_GUI_PACKAGE_DEPENDS "libckpt-engine0 (= ${CKPT_DEB_VERSION}), hicolor-icon-theme")
set(CPACK_DEBIAN_GUI_PACKAGE_RECOMMENDS "ckpt")

set(CPACK_COMPONENT_ENGINE_DESCRIPTION "Engine for TensorFlow object-based checkpoints (shared library)
Reads and writes TensorFlow V2 checkpoints (the index table, the data
shards, the checkpoint state file and the object graph) byte for byte,
and restores, compares, verifies, schedules and edits them.

This package holds the shared library used by ckpt and ckpt-explorer.")
set(CPACK_COMPONENT_DEV_DESCRIPTION "Engine for TensorFlow object-based checkpoints (development files)
Reads and writes TensorFlow V2 checkpoints (the index table, the data
shards, the checkpoint state file and the object graph) byte for byte,
and restores, compares, verifies, schedules and edits them.

This package holds the C++20 headers and the CMake package:
find_package(CkptEngine) gives the target ckpt::engine.")
set(CPACK_COMPONENT_CLI_DESCRIPTION "Inspect, verify, compare and edit TensorFlow checkpoints from scripts
ckpt lists, inspects, verifies, compares, restores, merges, averages,
edits and converts TensorFlow V2 object-based checkpoints, runs save
schedules and keeps a searchable catalog of runs. Every command can
print JSON.")
set(CPACK_COMPONENT_GUI_DESCRIPTION "Desktop explorer for TensorFlow checkpoints
ckpt-explorer browses the object graph of TensorFlow V2 checkpoints,
previews tensors as statistics, histograms and heatmaps, shows what a
restore would leave unmatched, compares checkpoints of a run and
manages save schedules and a catalog of runs.")
include(CPack)
