#include "cli_app.h"

namespace ckpt::cli {
namespace {

// CLI11 lets a repeatable option (a vector) take every following word that
// is not an option, positionals included: `merge --average --weights 1,2
// DST SRC...` read DST and the sources as more weights. Here an option
// takes one value per occurrence (split on its delimiter, if it has one);
// repeat the option for more.
void oneValuePerOccurrence(CLI::App& app) {
    for (CLI::Option* option : app.get_options())
        if (option->nonpositional() && option->get_allow_extra_args()) option->allow_extra_args(false);
    for (CLI::App* sub : app.get_subcommands({})) oneValuePerOccurrence(*sub);
}

}  // namespace

std::unique_ptr<CLI::App> makeCliApp(CommandContext& ctx) {
    auto app = std::make_unique<CLI::App>("ckpt: inspect, verify and manage TensorFlow checkpoints", "ckpt");
    app->require_subcommand(1);
    app->set_version_flag("--version", std::string("ckpt ") + CKPT_VERSION);
    registerInspect(*app, ctx);
    registerVerify(*app, ctx);
    registerCat(*app, ctx);
    registerTree(*app, ctx);
    registerStats(*app, ctx);
    registerHistogram(*app, ctx);
    registerPreview(*app, ctx);
    registerRestore(*app, ctx);
    registerSpec(*app, ctx);
    registerDemoTrain(*app, ctx);
    registerLatest(*app, ctx);
    registerList(*app, ctx);
    registerReshard(*app, ctx);
    registerMerge(*app, ctx);
    registerEdit(*app, ctx);
    registerExport(*app, ctx);
    registerImport(*app, ctx);
    registerDiff(*app, ctx);
    registerHistory(*app, ctx);
    registerRetention(*app, ctx);
    registerSchedule(*app, ctx);
    registerScheduler(*app, ctx);
    registerCatalog(*app, ctx);
    oneValuePerOccurrence(*app);
    return app;
}

}  // namespace ckpt::cli
