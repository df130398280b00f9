#pragma once
// The corruption zoo: systematically damaged checkpoints, each built into
// its own directory from a healthy source (a real TensorFlow checkpoint
// copied from the corpus, a `ckpt demo-train` run written by our engine, or
// a small bundle written here with the engine's writers) and then broken
// in exactly one way. Case names are stable: tests key their expectations
// on them (tests/cli/tst_corruption_zoo.cpp, tests/ui/tst_zoo_explorer.cpp).
// Nothing here is committed output: the zoo is rebuilt into a temporary
// directory by every run (tests/zoo/make_zoo.cpp writes one for people).
//   auto zoo = zoo::buildZoo(tmp.path().toStdString(), realCorpusDir);
//   for (const zoo::ZooCase& c : *zoo) run("ckpt", "verify", c.path);

#include <string>
#include <vector>

#include "ckpt/status.h"

namespace ckpt::zoo {

struct ZooCase {
    std::string name;  // stable, e.g. "keras-index-block-flip"
    std::string dir;   // the case's own directory
    std::string path;  // what a user would open: a prefix, or 'dir' for state-file cases
    std::string key;   // a tensor key for `cat` / `stats` (the damaged one where there is one)
};

// Builds every case under 'root' (which must exist). 'realDir' is the real
// corpus (CKPT_TESTDATA_REAL). Fails, naming the case, when a source is
// missing or an edit cannot be applied.
Result<std::vector<ZooCase>> buildZoo(const std::string& root, const std::string& realDir);

}  // namespace ckpt::zoo
