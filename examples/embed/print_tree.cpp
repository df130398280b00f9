// Opens a checkpoint (prefix, directory or SavedModel) and prints its
// object graph as ckpt-explorer shows it: print-tree runs/exp1
#include <cstdio>
#include <string>

#include <ckpt/checkpoint.h>
#include <ckpt/display_tree.h>

static void print(const ckpt::DisplayTree& tree, int entry, int depth) {
    const ckpt::DisplayEntry& e = tree.entries[entry];
    std::string line(2 * depth, ' ');
    line += e.name.empty() ? std::string("(root)") : std::string(e.name);
    if (e.tensor) line += "  " + std::string(ckpt::dataTypeName(e.tensor->dtype)) + e.tensor->shape.toString();
    std::puts(line.c_str());
    for (int child : e.children) print(tree, child, depth + 1);
}

int main(int argc, char** argv) {
    if (argc != 2) return std::fprintf(stderr, "usage: print-tree CHECKPOINT\n"), 2;
    auto checkpoint = ckpt::Checkpoint::open(argv[1]);
    if (!checkpoint) return std::fprintf(stderr, "%s\n", checkpoint.status().toString().c_str()), 1;
    print(ckpt::buildDisplayTree(**checkpoint), 0, 0);
}
