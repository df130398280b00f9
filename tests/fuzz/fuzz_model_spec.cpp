// A model-spec JSON (docs/model-spec.md): parsed into a program; a program
// that parses must export to a spec that parses back to the same export,
// and must serialize to an object graph the checkpoint reader accepts.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/model_spec.h"
#include "ckpt/object_graph.h"
#include "ckpt/save.h"
#include "fuzz_support.h"
#include "restore/spec_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // The spec scanner reads only what nlohmann's parser reads, into the same document.
    if (auto scanned = ckpt::spec::SpecJson::parseWith(text, true); scanned.ok()) {
        auto reference = ckpt::spec::SpecJson::parseWith(text, false);
        ckpt::fuzz::require(reference.ok(), "the spec scanner read a text nlohmann's parser refuses");
        ckpt::fuzz::require((*scanned)->identical(**reference), "the spec scanner and nlohmann's parser disagree");
    }
    auto program = ckpt::parseModelSpec(text, "fuzz input");
    if (!program) return 0;
    const std::string exported = ckpt::modelSpecJson(**program, true);
    auto reparsed = ckpt::parseModelSpec(exported, "exported spec");
    ckpt::fuzz::require(reparsed.ok(), "an exported spec does not parse");
    ckpt::fuzz::require(ckpt::modelSpecJson(**reparsed, true) == exported, "export + parse + export changes the spec");

    auto graph = ckpt::serializeObjectGraph(**program);
    if (!graph) return 0;
    ckpt::fuzz::require(ckpt::ObjectGraph::parse(*graph, "serialized spec").ok(), "a spec's object graph does not parse back");
    return 0;
}
