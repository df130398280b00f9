// ckpt-docgen: a build tool, never installed. Writes ckpt(1) and ckpt's bash
// completion from the command line ckpt itself parses (cli_app.h):
//   ckpt-docgen man TEMPLATE DATE OUTPUT
//   ckpt-docgen bash-completion OUTPUT

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "cli_app.h"
#include "cli_docs.h"

namespace {

int usage() {
    std::cerr << "usage: ckpt-docgen man TEMPLATE DATE OUTPUT | ckpt-docgen bash-completion OUTPUT\n";
    return 2;
}

int write(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (out) return 0;
    std::cerr << "ckpt-docgen: cannot write " << path << "\n";
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace ckpt::cli;
    CommandContext ctx;
    const std::unique_ptr<CLI::App> app = makeCliApp(ctx);
    const std::string what = argc > 1 ? argv[1] : "";
    if (what == "bash-completion" && argc == 3) return write(argv[2], bashCompletion(*app));
    if (what != "man" || argc != 5) return usage();
    std::ifstream in(argv[2], std::ios::binary);
    std::stringstream manTemplate;
    manTemplate << in.rdbuf();
    if (!in) {
        std::cerr << "ckpt-docgen: cannot read " << argv[2] << "\n";
        return 1;
    }
    return write(argv[4], manPage(*app, manTemplate.str(), CKPT_VERSION, argv[3]));
}
