#pragma once
// The parts of the _ckpt extension module, one function per source file.

#include <nanobind/nanobind.h>

namespace ckpt::python {

void bindReader(nanobind::module_& m);      // reader.cpp
void bindOperations(nanobind::module_& m);  // operations.cpp
void bindWriters(nanobind::module_& m);     // writers.cpp
void bindCatalog(nanobind::module_& m);     // catalog.cpp

}  // namespace ckpt::python
