#include "cli_app.h"

#include <iostream>

#include "ckpt/object_store.h"

namespace ckpt::cli {
namespace {

// Options for s3:// and gs:// locations, accepted before or after the
// subcommand (docs/remote.md); applied before the subcommand runs.
void addObjectStoreOptions(CLI::App& app, CommandContext& ctx) {
    auto options = std::make_shared<ObjectStoreOptions>();
    app.add_option("--endpoint-url", options->endpointUrl,
                   "S3 endpoint for s3:// locations (default: AWS_ENDPOINT_URL, the profile, AWS)");
    app.add_option("--profile", options->profile, "AWS profile for credentials and settings (default: AWS_PROFILE)");
    app.add_option("--addressing", options->addressing, "path or virtual (default: path for custom endpoints)")
        ->check(CLI::IsMember({"path", "virtual"}));
    app.add_flag("--allow-http", options->allowHttp, "allow plain http to an endpoint that is not loopback");
    app.add_flag("--stats", ctx.printObjectStoreStats, "print object-store requests, retries and bytes to stderr when done");
    auto cache = std::make_shared<ObjectCacheOptions>();
    app.add_option("--cache-dir", cache->directory,
                   "keep remote indexes and small reads in DIR, revalidated by ETag (default: CKPT_CACHE_DIR, else none)");
    app.parse_complete_callback([options, cache] {
        const Status s = configureObjectStores(*options);
        if (!s.isOk()) throw CLI::ValidationError(s.message());
        // A cache that cannot be used costs its speed, not the command.
        const ObjectCacheState state = configureObjectCache(*cache);
        if (!state.warning.empty()) std::cerr << "ckpt: warning: " << state.warning << "\n";
    });
}

// Settles what holds for every command once all are registered (recursive):
// - CLI11 lets a repeatable option (a vector) take every following word that
//   is not an option, positionals included: `merge --average --weights 1,2
//   DST SRC...` read DST and the sources as more weights. Here an option
//   takes one value per occurrence (split on its delimiter, if it has one);
//   repeat the option for more.
// - A subcommand passes options it does not know up to its parent, so the
//   object-store options work after it, at any depth ("ckpt catalog scan
//   --stats").
void settleCommandTree(CLI::App& app, bool root) {
    if (!root) app.fallthrough();
    for (CLI::Option* option : app.get_options())
        if (option->nonpositional() && option->get_allow_extra_args()) option->allow_extra_args(false);
    for (CLI::App* sub : app.get_subcommands({})) settleCommandTree(*sub, false);
}

}  // namespace

std::unique_ptr<CLI::App> makeCliApp(CommandContext& ctx) {
    auto app = std::make_unique<CLI::App>("ckpt: inspect, verify and manage TensorFlow checkpoints", "ckpt");
    app->require_subcommand(1);
    app->set_version_flag("--version", std::string("ckpt ") + CKPT_VERSION);
    addObjectStoreOptions(*app, ctx);
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
    settleCommandTree(*app, true);
    return app;
}

}  // namespace ckpt::cli
