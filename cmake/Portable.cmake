# build/portable/tracesql: the program of the Python wheel (docs/python.md, "Which machines the wheel
# runs on"), which must run on glibc 2.28 (RHEL 8) and later. It is linked from the very objects of
# build/tracesql (tracesql_main and the three static libraries: no second compile), with the
# libraries Debian ships as static archives in place of the shared ones: SQLite, zlib, libedit with
# what it needs (libtinfo, libbsd, libmd), libstdc++. Debian ships fmt and simdjson only shared:
# fmt's few out-of-line functions are compiled into src/util/fmt_static.cc; simdjson stays shared,
# loaded from the program's directory first (RPATH $ORIGIN), where the wheel puts libsimdjson.so.
# glibc stays shared too: src/util/glibc_compat.cc binds the calls whose symbol version is newer than
# glibc 2.28 to the 2.28 ones. tests/python/check_glibc.sh (ctest python.glibc) checks the result, in
# the wheel that python.wheel builds around it. Included from CMakeLists.txt.
set(tq_portable_archives)
foreach(lib sqlite3 z edit tinfo bsd md)
  find_library(TQ_STATIC_${lib} NAMES lib${lib}.a)
  if(NOT TQ_STATIC_${lib})
    message(STATUS "No lib${lib}.a: build/portable/tracesql is not built (TRACESQL_PORTABLE)")
    return()
  endif()
  list(APPEND tq_portable_archives ${TQ_STATIC_${lib}})
endforeach()

add_executable(tracesql_portable $<TARGET_OBJECTS:tracesql_main> src/util/glibc_compat.cc src/util/fmt_static.cc)
set_target_properties(tracesql_portable PROPERTIES OUTPUT_NAME tracesql RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/portable
                      BUILD_RPATH "$ORIGIN" INSTALL_RPATH "$ORIGIN")
# The static libraries by file, not by target: the targets would bring their shared dependencies along.
add_dependencies(tracesql_portable tracesql_app tracesql_critical_path tracesql_core)
target_link_libraries(tracesql_portable PRIVATE
  $<TARGET_FILE:tracesql_app> $<TARGET_FILE:tracesql_critical_path> $<TARGET_FILE:tracesql_core>
  ${tq_portable_archives} simdjson::simdjson Threads::Threads ${CMAKE_DL_LIBS} m tq_options)
target_include_directories(tracesql_portable PRIVATE $<TARGET_PROPERTY:fmt::fmt,INTERFACE_INCLUDE_DIRECTORIES>)
# Old glibc has the pthread and dl functions in libpthread.so.0 and libdl.so.2, so the program names them.
foreach(sym __libc_start_main pthread_create pthread_join pthread_detach pthread_kill pthread_once
        pthread_key_create __pthread_key_create pthread_key_delete pthread_getspecific pthread_setspecific
        pthread_mutex_trylock pthread_mutexattr_init pthread_mutexattr_destroy pthread_mutexattr_settype
        pthread_cond_clockwait dlopen dlsym dlclose dlerror exp log pow stat fstat lstat fstatat stat64
        fstat64 lstat64 arc4random)
  target_link_options(tracesql_portable PRIVATE -Wl,--wrap=${sym})
endforeach()
target_link_options(tracesql_portable PRIVATE -static-libstdc++
                    -Wl,--no-as-needed,-l:libpthread.so.0,-l:libdl.so.2,--as-needed)
