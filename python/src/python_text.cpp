#include "python_text.h"

namespace nb = nanobind;

namespace ckpt::python {

nb::str toPython(std::string_view text) {
    PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "surrogateescape");
    if (!s) throw nb::python_error();
    return nb::steal<nb::str>(s);
}

std::string fromPython(nb::handle text) {
    if (PyBytes_Check(text.ptr()))
        return std::string(PyBytes_AS_STRING(text.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(text.ptr())));
    if (!PyUnicode_Check(text.ptr())) {
        PyErr_Format(PyExc_TypeError, "expected str or bytes, not %.100s", Py_TYPE(text.ptr())->tp_name);
        throw nb::python_error();
    }
    PyObject* bytes = PyUnicode_AsEncodedString(text.ptr(), "utf-8", "surrogateescape");
    if (!bytes) throw nb::python_error();
    std::string out(PyBytes_AS_STRING(bytes), static_cast<size_t>(PyBytes_GET_SIZE(bytes)));
    Py_DECREF(bytes);
    return out;
}

}  // namespace ckpt::python
