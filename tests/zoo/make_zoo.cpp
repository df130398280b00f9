// make_zoo OUT_DIR [REAL_CORPUS]: writes the corruption zoo (corruption_zoo.h)
// into OUT_DIR, one directory per case, and prints "name<TAB>path<TAB>key"
// per case: for looking at a case by hand with `ckpt` or the explorer.
// REAL_CORPUS defaults to $CKPT_TESTDATA_REAL.

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "corruption_zoo.h"

int main(int argc, char** argv) {
    const char* real = argc > 2 ? argv[2] : std::getenv("CKPT_TESTDATA_REAL");
    if (argc < 2 || !real) {
        std::cerr << "usage: make_zoo OUT_DIR [REAL_CORPUS]  (or set CKPT_TESTDATA_REAL)\n";
        return 2;
    }
    std::filesystem::create_directories(argv[1]);
    auto zoo = ckpt::zoo::buildZoo(std::filesystem::absolute(argv[1]).string(), real);
    if (!zoo.ok()) {
        std::cerr << "make_zoo: " << zoo.status().toString() << "\n";
        return 1;
    }
    for (const auto& c : *zoo) std::cout << c.name << "\t" << c.path << "\t" << c.key << "\n";
    return 0;
}
