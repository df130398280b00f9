#pragma once
// Tensors built in memory for test fixtures.

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/save.h"
#include "ckpt/tensor.h"

namespace ckpt::testing {

template <typename T>
Tensor makeTensor(DataType dtype, std::vector<int64_t> dims, const std::vector<T>& values) {
    Tensor t;
    t.dtype = dtype;
    t.shape.dims = std::move(dims);
    t.bytes.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    return t;
}

// n zeros of float32, shape [n].
inline Tensor zeroFloats(int64_t n) {
    return makeTensor<float>(DataType::Float, {n}, std::vector<float>(static_cast<size_t>(n)));
}

// A whole (unpartitioned) tensor to save under 'key'.
inline SaveTensor plainSaveTensor(std::string key, Tensor value) {
    SaveTensor t;
    t.key = std::move(key);
    t.fullShape = value.shape;
    t.value = std::move(value);
    return t;
}

}  // namespace ckpt::testing
