# Compiles through ccache when it is installed (CKPT_USE_CCACHE=OFF, or a
# launcher of your own, turns it off). Rebuilding unchanged sources is most of
# what CI does: a clean clone, the clean Debian 12 root and pip's build all
# compile the same files again. Paths are hashed relative to the source tree
# (CCACHE_BASEDIR) and without the working directory (CCACHE_NOHASHDIR), so
# clones at different places share entries; the price is that debug info may
# name the directory of the clone that first compiled a file.
option(CKPT_USE_CCACHE "Compile through ccache when it is installed" ON)
if(CKPT_USE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(CKPT_CCACHE_PROGRAM ccache)
  mark_as_advanced(CKPT_CCACHE_PROGRAM)
  if(CKPT_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER "${CMAKE_COMMAND}" -E env "CCACHE_BASEDIR=${CMAKE_SOURCE_DIR}"
                                    CCACHE_NOHASHDIR=1 "${CKPT_CCACHE_PROGRAM}")
  endif()
endif()
