#pragma once
// The arrays of a .safetensors or .npz file, listed without reading their
// values, then read one at a time: what import fills variables from.
// Internal to the engine. Not thread-safe.

#include <memory>
#include <string>
#include <vector>

#include "ckpt/convert.h"
#include "ckpt/status.h"
#include "ckpt/tensor.h"

namespace ckpt::convert {

struct ArrayInfo {
    std::string name;
    DataType dtype = DataType::Invalid;
    TensorShape shape;
};

class ArrayFile {
public:
    // Tells the formats apart by their first bytes (a zip's "PK"). Every
    // array's dtype and shape are checked here, and bounded by the file;
    // an unsupported dtype is an InvalidArgument naming the array. Our
    // npz metadata member is not listed.
    [[nodiscard]] static Result<std::unique_ptr<ArrayFile>> open(const std::string& path);
    virtual ~ArrayFile() = default;

    virtual ArrayFormat format() const = 0;
    const std::vector<ArrayInfo>& arrays() const { return m_arrays; }
    virtual Result<Tensor> read(size_t index) const = 0;

protected:
    std::vector<ArrayInfo> m_arrays;
};

}  // namespace ckpt::convert
