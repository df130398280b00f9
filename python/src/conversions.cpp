#include "conversions.h"

#include "python_text.h"

namespace nb = nanobind;

namespace ckpt::python {

nb::object optionalInt(const std::optional<int64_t>& value) { return value ? nb::object(nb::int_(*value)) : nb::none(); }

nb::object statusOrNone(const Status& status) {
    if (status.isOk()) return nb::none();
    return toPython(status.toString());
}

nb::list stringList(const std::vector<std::string>& items) {
    nb::list out;
    for (const std::string& s : items) out.append(toPython(s));
    return out;
}

nb::list dims(const TensorShape& shape) {
    nb::list out;
    for (int64_t d : shape.dims) out.append(d);
    return out;
}

nb::list verifyProblems(const VerifyReport& report) {
    nb::list problems;
    for (const VerifyProblem& p : report.problems) {
        nb::dict d;
        d["file"] = toPython(p.file);
        d["key"] = toPython(p.key);
        d["message"] = toPython(p.message);
        problems.append(d);
    }
    return problems;
}

nb::object jsonToPython(std::string_view json) {
    return nb::module_::import_("json").attr("loads")(nb::str(json.data(), json.size()));
}

}  // namespace ckpt::python
