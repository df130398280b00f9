#include "cli_app.h"

namespace ckpt::cli {

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
    registerGc(*app, ctx);
    return app;
}

}  // namespace ckpt::cli
