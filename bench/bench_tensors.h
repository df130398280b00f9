#pragma once
// The tensors the save benchmarks write: 'count' float32 vectors of
// 'elementsEach' values, deterministic and distinct per tensor.

#include <string>
#include <vector>

#include "ckpt/save.h"

namespace ckpt::bench {

inline std::vector<SaveTensor> makeSaveTensors(int count, int64_t elementsEach) {
    std::vector<SaveTensor> out;
    for (int i = 0; i < count; ++i) {
        SaveTensor t;
        t.key = "layer_" + std::to_string(i) + "/kernel/.ATTRIBUTES/VARIABLE_VALUE";
        t.value.dtype = DataType::Float;
        t.value.shape = TensorShape{{elementsEach}};
        t.value.bytes.resize(static_cast<size_t>(elementsEach) * 4);
        auto* f = reinterpret_cast<float*>(t.value.bytes.data());
        for (int64_t j = 0; j < elementsEach; ++j) f[j] = static_cast<float>(i) + static_cast<float>(j) * 1e-6f;
        t.fullShape = t.value.shape;
        out.push_back(std::move(t));
    }
    return out;
}

}  // namespace ckpt::bench
