// _ckpt: the engine's Python binding. Only conversions live here; every
// rule is the engine's (docs/python.md). The public package is ckpt/.

#include <nanobind/nanobind.h>

#include "bindings.h"

namespace nb = nanobind;

NB_MODULE(_ckpt, m) {
    m.doc() = "The ckpt-explorer engine (libckpt-engine) for Python; use the ckpt package.";
    ckpt::python::bindReader(m);
    ckpt::python::bindOperations(m);
    ckpt::python::bindWriters(m);
    ckpt::python::bindCatalog(m);
}
