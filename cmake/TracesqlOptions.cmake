# Warnings and sanitizers hang on INTERFACE targets, never on global flags.
add_library(tq_warnings INTERFACE)
target_compile_options(tq_warnings INTERFACE
  -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual -Wformat=2
  -Wimplicit-fallthrough $<$<BOOL:${TRACESQL_WERROR}>:-Werror>)

add_library(tq_options INTERFACE)
if(TRACESQL_SANITIZE)
  target_compile_options(tq_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                         -fno-sanitize-recover=undefined)
  target_link_options(tq_options INTERFACE -fsanitize=address,undefined)
endif()
