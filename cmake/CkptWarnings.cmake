# Warnings every target of ours gets; -Werror lives in the CI preset only.
add_library(ckpt_warnings INTERFACE)
target_compile_options(ckpt_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
    -Woverloaded-virtual -Wimplicit-fallthrough>)
