#pragma once
// Engine text <-> Python str. Checkpoint keys, names and paths are bytes
// that are usually UTF-8 but need not be: they become str with
// surrogateescape (as os.fsdecode does), and come back to the same bytes.

#include <nanobind/nanobind.h>

#include <string>
#include <string_view>

namespace ckpt::python {

nanobind::str toPython(std::string_view text);
// A str (surrogateescape) or bytes; TypeError otherwise.
std::string fromPython(nanobind::handle text);

}  // namespace ckpt::python
