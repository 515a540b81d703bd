# Warnings and sanitizers hang on INTERFACE targets, never on global flags.
add_library(tq_warnings INTERFACE)
target_compile_options(tq_warnings INTERFACE
  -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual -Wformat=2
  -Wimplicit-fallthrough $<$<BOOL:${TRACESQL_WERROR}>:-Werror>)
# GCC 12 at -O3 (Release) warns falsely on std::string concatenation and assign inside libstdc++
# ("__builtin_memcpy ... may overlap", -Wrestrict; GCC bug 105329, fixed in GCC 13), which -Werror
# would make fatal. Only that compiler version loses the warning.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
   AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(tq_warnings INTERFACE -Wno-restrict)
endif()

add_library(tq_options INTERFACE)
if(TRACESQL_SANITIZE)
  target_compile_options(tq_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                         -fno-sanitize-recover=undefined)
  target_link_options(tq_options INTERFACE -fsanitize=address,undefined)
endif()
