#pragma once
// The arrays of a .safetensors or .npz file, listed without reading their
// values, then read one at a time or streamed: what import fills variables
// from. Internal to the engine. Sources may be read from several threads.

#include <memory>
#include <string>
#include <vector>

#include "ckpt/convert.h"
#include "ckpt/status.h"
#include "ckpt/tensor.h"
#include "ckpt/tensor_source.h"

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
    uint64_t fileBytes() const { return m_fileBytes; }
    // Bytes all the arrays' values take once read (an npz's inflated size).
    uint64_t valueBytes() const;
    // An array whole, in memory (for small ones and tests).
    Result<Tensor> read(size_t index) const;
    // An array's value bytes read on demand, in bounded pieces (import
    // streams each into the save pipeline). Valid while this file lives.
    virtual std::shared_ptr<const TensorSource> source(size_t index) const = 0;

protected:
    std::vector<ArrayInfo> m_arrays;
    uint64_t m_fileBytes = 0;
};

}  // namespace ckpt::convert
