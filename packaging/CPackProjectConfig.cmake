# Read by cpack (CPACK_PROJECT_CONFIG_FILE) once per generator, before it packages anything.
if(CPACK_GENERATOR STREQUAL "DEB" AND CPACK_DEBIAN_PACKAGE_SHLIBDEPS)
    # CPackDeb skips the shared-library dependencies silently when dpkg-shlibdeps is missing,
    # which would make a package whose Depends omits Qt, gRPC and the rest.
    find_program(WS_DPKG_SHLIBDEPS dpkg-shlibdeps)
    if(NOT WS_DPKG_SHLIBDEPS)
        message(FATAL_ERROR "dpkg-shlibdeps not found: install dpkg-dev (apt-get install dpkg-dev); "
                            "without it the package would not declare the libraries it needs")
    endif()
endif()
