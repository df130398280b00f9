#include "fuzz_support.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ckpt/bundle_writer.h"
#include "ckpt/object_graph.h"
#include "ckpt/save.h"
#include "storage/dispatch.h"
#include "platform/file.h"

namespace ckpt::fuzz {
namespace {

Tensor filledTensor(DataType dtype, TensorShape shape, size_t elementSize) {
    Tensor t;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.bytes.resize(static_cast<size_t>(t.numElements()) * elementSize);
    for (size_t i = 0; i < t.bytes.size(); ++i) t.bytes[i] = static_cast<uint8_t>(i * 37 + 11);
    return t;
}

std::string makeScratchDir() {
    const char* chosen = std::getenv("CKPT_FUZZ_SCRATCH");
    const char* tmp = std::getenv("TMPDIR");
    std::string base = chosen && *chosen ? chosen : storage::isDirectory("/dev/shm") ? "/dev/shm" : tmp && *tmp ? tmp : "/tmp";
    std::string pattern = platform::joinPath(base, "ckpt-fuzz-XXXXXX");
    require(mkdtemp(pattern.data()) != nullptr, "cannot create the scratch directory");
    return pattern;
}

void removeScratchDir() { (void)storage::removeAll(scratchDir()); }

}  // namespace

const std::string& scratchDir() {
    static const std::string dir = makeScratchDir();
    // Registered after 'dir' is made, so it runs before 'dir' is destroyed.
    static const bool cleanup = std::atexit(removeScratchDir) == 0;
    (void)cleanup;
    return dir;
}

void writeInput(const std::string& path, std::string_view bytes) {
    requireOk(storage::writeObject(path, bytes).status(), "cannot write the input");
}

void require(bool condition, const char* what) {
    if (condition) return;
    std::fprintf(stderr, "fuzz: property broken: %s\n", what);
    std::abort();
}

void requireOk(const Status& status, const char* what) {
    if (status.isOk()) return;
    std::fprintf(stderr, "fuzz: property broken: %s: %s\n", what, status.toString().c_str());
    std::abort();
}

Status writeSampleBundle(const std::string& prefix) {
    CKPT_ASSIGN_OR_RETURN(auto writer, BundleWriter::create(prefix));
    CKPT_RETURN_IF_ERROR(
        writer->add("model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE", filledTensor(DataType::Float, TensorShape{{3, 4}}, 4)));
    CKPT_RETURN_IF_ERROR(
        writer->add("model/dense/bias/.ATTRIBUTES/VARIABLE_VALUE", filledTensor(DataType::BFloat16, TensorShape{{4}}, 2)));
    CKPT_RETURN_IF_ERROR(writer->add("step/.ATTRIBUTES/VARIABLE_VALUE", filledTensor(DataType::Int64, TensorShape{}, 8)));
    CKPT_RETURN_IF_ERROR(writer->add("mask/.ATTRIBUTES/VARIABLE_VALUE", filledTensor(DataType::Bool, TensorShape{{5}}, 1)));
    CKPT_RETURN_IF_ERROR(writer->add("empty/.ATTRIBUTES/VARIABLE_VALUE", filledTensor(DataType::Double, TensorShape{{0, 3}}, 8)));
    Tensor words{.dtype = DataType::String, .shape = TensorShape{{3}}, .bytes = {}, .strings = {"alpha", "", "\x01\xff z"}};
    CKPT_RETURN_IF_ERROR(writer->add("vocab/.ATTRIBUTES/VARIABLE_VALUE", words));
    const TensorShape full{{4, 2}};
    for (int64_t start : {0, 2}) {
        const TensorSlice slice{{SliceExtent{start, 2}, SliceExtent{}}};
        CKPT_RETURN_IF_ERROR(writer->addSlice("embedding/.ATTRIBUTES/VARIABLE_VALUE", full, slice,
                                              filledTensor(DataType::Int32, TensorShape{{2, 2}}, 4)));
    }
    CKPT_ASSIGN_OR_RETURN(const auto program, sampleProgram());
    CKPT_ASSIGN_OR_RETURN(const std::string graph, serializeObjectGraph(*program));
    Tensor graphTensor{.dtype = DataType::String, .shape = TensorShape{}, .bytes = {}, .strings = {graph}};
    CKPT_RETURN_IF_ERROR(writer->add(kObjectGraphKey, graphTensor));
    return writer->finish();
}

Result<std::shared_ptr<Trackable>> sampleProgram() {
    auto root = Trackable::makeObject();
    auto model = Trackable::makeObject();
    auto adam = Optimizer::make();
    for (const char* layerName : {"dense", "dense_1"}) {
        auto layer = Trackable::makeObject();
        auto kernel = Variable::make(DataType::Float, TensorShape{{3, 4}});
        auto bias = Variable::make(DataType::Float, TensorShape{{4}});
        kernel->setFullName(std::string(layerName) + "/kernel");
        CKPT_RETURN_IF_ERROR(layer->addChild("kernel", kernel));
        CKPT_RETURN_IF_ERROR(layer->addChild("bias", bias));
        CKPT_RETURN_IF_ERROR(model->addChild(layerName, layer));
        for (const char* slot : {"m", "v"}) {
            adam->createSlot(*kernel, slot);
            adam->createSlot(*bias, slot);
        }
    }
    CKPT_RETURN_IF_ERROR(root->addChild("model", model));
    CKPT_RETURN_IF_ERROR(root->addChild("optimizer", adam));
    CKPT_RETURN_IF_ERROR(adam->addChild("iter", Variable::make(DataType::Int64, TensorShape{})));
    Tensor note{.dtype = DataType::String, .shape = TensorShape{{2}}, .bytes = {}, .strings = {"a/b", "with.dots"}};
    CKPT_RETURN_IF_ERROR(root->addChild("notes.v1/x", Variable::fromTensor(note)));
    return root;
}

}  // namespace ckpt::fuzz
