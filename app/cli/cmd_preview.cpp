// ckpt stats / histogram / preview: tensor previews (docs/cli.md).
//   ckpt stats PATH KEY [--json] [--device auto|cpu|cuda] [--verbose]
//   ckpt stats PATH --all --json
//   ckpt histogram PATH KEY [--bins N] [--log] [--range LO,HI] [--json] [--device ...]
//   ckpt preview PATH KEY --png OUT [--axes I,J] [--index D=K ...] [--reduce mean|maxabs]
//                [--size WxH] [--colormap NAME] [--device ...] [--json]

#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "ckpt/catalog.h"
#include "ckpt/catalog_cache.h"
#include "ckpt/checkpoint.h"
#include "ckpt/preview.h"
#include "json_output.h"
#include "output.h"

namespace ckpt::cli {
namespace {

// Options every preview command shares.
struct PreviewArgs {
    std::string path, key, device = "auto", catalog;
    bool json = false, verbose = false, noCache = false;
};

// stats and histogram: figures come from the catalog's cache when it has them.
void addCacheOptions(CLI::App* cmd, PreviewArgs& a) {
    cmd->add_option("--catalog", a.catalog, "Catalog whose results cache to use (default: the user's, when it exists)");
    cmd->add_flag("--no-cache", a.noCache, "Compute, ignoring and not filling the catalog's cache");
}

// A preview's cache: none with --no-cache or a --device other than auto
// (the user asked for a computation).
std::unique_ptr<Catalog> previewCache(const PreviewArgs& a) {
    if (a.noCache || a.device != "auto") return nullptr;
    return sideCatalog(a.catalog);
}

void addCommon(CLI::App* cmd, PreviewArgs& a, bool keyRequired) {
    cmd->add_option("PATH", a.path, "Checkpoint prefix, .index file, directory or SavedModel")->required();
    auto* key = cmd->add_option("KEY", a.key, "Tensor key, e.g. model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE");
    if (keyRequired) key->required();
    cmd->add_flag("--json", a.json, "Machine-readable output (docs/cli.md)");
    cmd->add_option("--device", a.device, "Where to compute: auto (CUDA when usable), cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd->add_flag("--verbose,-v", a.verbose, "Say where the preview ran and why not on the GPU");
}

// Request errors from the preview API are the user's (exit 2).
int reportPreviewError(const Status& st, bool json) {
    const int code = reportError(st, json);
    return st.code() == StatusCode::OutOfRange ? kExitUsage : code;
}

void say(const PreviewArgs& a, const ComputedOn& on, bool fromCache = false) {
    if (!a.verbose) return;
    if (fromCache) std::cerr << "ckpt: from the catalog's cache, computed earlier on " << on.device << "\n";
    if (fromCache) return;
    std::cerr << "ckpt: computed on " << on.device;
    if (!on.deviceName.empty()) std::cerr << " (" << on.deviceName << ")";
    if (!on.fallbackReason.empty()) std::cerr << "; CUDA not used: " << on.fallbackReason;
    if (!on.estimate.empty()) std::cerr << " (" << on.estimate << ")";
    std::cerr << "\n";
}

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json deviceJson(const ComputedOn& on) {
    return {{"device", on.device},
            {"device_name", on.deviceName},
            {"fallback_reason", on.fallbackReason},
            {"device_estimate", on.estimate}};
}

nlohmann::json statsJson(const TensorInfo& t, const Cached<TensorStats>& cached) {
    const TensorStats& s = cached.value;
    nlohmann::json j = {{"key", displayableString(t.key)},
                        {"dtype", std::string(dataTypeName(t.dtype))},
                        {"shape", t.shape.dims},
                        {"from_cache", cached.fromCache},
                        {"values", s.stringLengths      ? "string lengths"
                                   : s.complexMagnitude ? "complex magnitude"
                                                        : "numbers"},
                        {"count", s.count},
                        {"finite", s.finiteCount},
                        {"zeros", s.zeros},
                        {"nan", s.nans},
                        {"pos_inf", s.posInfs},
                        {"neg_inf", s.negInfs},
                        {"min", number(s.min)},
                        {"max", number(s.max)},
                        {"mean", number(s.mean)},
                        {"std", number(s.std)},
                        {"absmax", number(s.absMax)}};
    j.update(deviceJson(s.computedOn));
    return j;
}

std::string fmt(double v) {
    std::ostringstream o;
    o << std::setprecision(9) << v;
    return o.str();
}

void printStatsText(const TensorInfo& t, const TensorStats& s) {
    std::cout << displayableString(t.key) << "  " << dataTypeName(t.dtype) << " " << t.shape.toString();
    if (s.stringLengths) std::cout << "  (string lengths)";
    if (s.complexMagnitude) std::cout << "  (magnitude)";
    std::cout << "\n  count " << s.count << "  finite " << s.finiteCount << "  zeros " << s.zeros << "  nan " << s.nans
              << "  +inf " << s.posInfs << "  -inf " << s.negInfs << "\n  min " << fmt(s.min) << "  max " << fmt(s.max)
              << "  mean " << fmt(s.mean) << "  std " << fmt(s.std) << "  absmax " << fmt(s.absMax) << "\n";
}

void registerStatsCmd(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("stats", "Statistics of a tensor (or of every tensor with --all)");
    auto a = std::make_shared<PreviewArgs>();
    auto all = std::make_shared<bool>(false);
    addCommon(cmd, *a, false);
    addCacheOptions(cmd, *a);
    cmd->add_flag("--all", *all, "Every tensor of the checkpoint");
    cmd->callback([&ctx, a, all] {
        if (a->key.empty() == !*all) {
            ctx.exitCode = reportError(invalidArgument("give either KEY or --all"), a->json);
            return;
        }
        PreviewOptions opt;
        opt.device = *previewDeviceFromName(a->device);
        auto reader = *all ? openBundleAt(a->path) : openBundleAt(a->path, a->key);
        if (!reader) {
            ctx.exitCode = reportError(reader.status(), a->json);
            return;
        }
        const std::unique_ptr<Catalog> cache = previewCache(*a);
        if (!*all) {
            const TensorInfo* info = (*reader)->find(a->key);
            if (!info) {
                ctx.exitCode = reportError((*reader)->read(a->key).status(), a->json);
                return;
            }
            auto stats = cachedStats(cache.get(), **reader, *info, opt);
            if (!stats) {
                ctx.exitCode = reportPreviewError(stats.status(), a->json);
                return;
            }
            say(*a, stats->value.computedOn, stats->fromCache);
            if (a->json) printJson(statsJson(*info, *stats));
            else printStatsText(*info, stats->value);
            return;
        }
        nlohmann::json list = nlohmann::json::array();
        for (const TensorInfo& info : (*reader)->tensors()) {
            auto stats = cachedStats(cache.get(), **reader, info, opt);
            if (stats) {
                say(*a, stats->value.computedOn, stats->fromCache);
                if (a->json) list.push_back(statsJson(info, *stats));
                else printStatsText(info, stats->value);
                continue;
            }
            const Status failure = stats.status();
            // Tensors without numbers (resource, variant) are listed, not failures.
            if (failure.code() != StatusCode::Unimplemented) ctx.exitCode = kExitCheckpointProblem;
            if (!a->json) std::cerr << "ckpt: " << failure.toString() << "\n";
            list.push_back({{"key", displayableString(info.key)},
                            {"dtype", std::string(dataTypeName(info.dtype))},
                            {"shape", info.shape.dims},
                            {"error", {{"code", std::string(statusCodeName(failure.code()))}, {"message", failure.message()}}}});
        }
        if (a->json) printJson({{"prefix", (*reader)->prefix()}, {"tensors", list}});
    });
}

void registerHistogramCmd(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("histogram", "Histogram of a tensor's finite values");
    auto a = std::make_shared<PreviewArgs>();
    auto req = std::make_shared<HistogramRequest>();
    auto range = std::make_shared<std::vector<double>>();
    addCommon(cmd, *a, true);
    addCacheOptions(cmd, *a);
    cmd->add_option("--bins", req->bins, "Number of bins, 1..4096 (default 64)");
    cmd->add_flag("--log", req->logCounts, "Draw bar lengths on a log scale (counts stay exact)");
    cmd->add_option("--range", *range, "LO,HI instead of the finite [min, max]")->delimiter(',')->expected(2);
    cmd->callback([&ctx, a, req, range] {
        if (range->size() == 2) {
            req->lo = (*range)[0];
            req->hi = (*range)[1];
        }
        PreviewOptions opt;
        opt.device = *previewDeviceFromName(a->device);
        auto reader = openBundleAt(a->path, a->key);
        const TensorInfo* tensor = reader ? (*reader)->find(a->key) : nullptr;
        if (!tensor) {
            ctx.exitCode = reportError(reader ? (*reader)->read(a->key).status() : reader.status(), a->json);
            return;
        }
        const std::unique_ptr<Catalog> cache = previewCache(*a);
        auto cached = cachedHistogram(cache.get(), **reader, *tensor, *req, opt);
        if (!cached) {
            ctx.exitCode = reportPreviewError(cached.status(), a->json);
            return;
        }
        const Histogram* h = &cached->value;
        say(*a, h->computedOn, cached->fromCache);
        if (a->json) {
            nlohmann::json j = {{"key", displayableString(a->key)},
                                {"dtype", std::string(dataTypeName(tensor->dtype))},
                                {"shape", tensor->shape.dims},
                                {"values", h->stringLengths ? "string lengths" : "numbers"},
                                {"lo", h->lo},
                                {"hi", h->hi},
                                {"bins", h->counts.size()},
                                {"edges", h->edges},
                                {"counts", h->counts},
                                {"below", h->below},
                                {"above", h->above},
                                {"nan", h->nans},
                                {"log", h->logCounts},
                                {"from_cache", cached->fromCache}};
            j.update(deviceJson(h->computedOn));
            printJson(j);
            return;
        }
        int64_t peak = 1;
        for (int64_t c : h->counts) peak = std::max(peak, c);
        constexpr int kBarWidth = 50;
        std::cout << displayableString(a->key) << "  " << dataTypeName(tensor->dtype) << " " << tensor->shape.toString()
                  << (h->logCounts ? "  (log scale)" : "") << "\n";
        for (size_t b = 0; b < h->counts.size(); ++b) {
            const double c = static_cast<double>(h->counts[b]);
            const double frac =
                h->logCounts ? std::log1p(c) / std::log1p(static_cast<double>(peak)) : c / static_cast<double>(peak);
            std::cout << std::setw(14) << fmt(h->edges[b]) << " .. " << std::setw(14) << fmt(h->edges[b + 1]) << " "
                      << std::setw(10) << h->counts[b] << " "
                      << std::string(static_cast<size_t>(std::lround(frac * kBarWidth)), '#') << "\n";
        }
        if (h->below || h->above || h->nans) {
            std::cout << "  below " << h->below << "  above " << h->above << "  nan " << h->nans << "\n";
        }
    });
}

Status parseHeatmapOptions(const std::string& axes, const std::vector<std::string>& indices, const std::string& size,
                           const std::string& reduce, HeatmapRequest& req) {
    if (!axes.empty()) {
        int r = 0, c = 0;
        char comma = 0;
        std::istringstream in(axes);
        if (!(in >> r >> comma >> c) || comma != ',' || !in.eof()) {
            return invalidArgument("--axes wants I,J (two axis numbers), got \"" + axes + "\"");
        }
        req.axes = {r, c};
    }
    for (const std::string& spec : indices) {
        int d = 0;
        int64_t k = 0;
        char eq = 0;
        std::istringstream in(spec);
        if (!(in >> d >> eq >> k) || eq != '=' || !in.eof()) {
            return invalidArgument("--index wants D=K (axis=index), got \"" + spec + "\"");
        }
        req.fixedIndices[d] = k;
    }
    if (!size.empty()) {
        int w = 0, h = 0;
        char x = 0;
        std::istringstream in(size);
        if (!(in >> w >> x >> h) || (x != 'x' && x != 'X') || !in.eof()) {
            return invalidArgument("--size wants WxH, e.g. 256x256, got \"" + size + "\"");
        }
        req.maxWidth = w;
        req.maxHeight = h;
    }
    req.reduce = reduce == "maxabs" ? HeatmapReduce::MaxAbs : HeatmapReduce::Mean;
    return okStatus();
}

void registerPreviewCmd(CLI::App& app, CommandContext& ctx) {
    auto* cmd = app.add_subcommand("preview", "Render a tensor as a heatmap PNG");
    auto a = std::make_shared<PreviewArgs>();
    auto png = std::make_shared<std::string>();
    auto axes = std::make_shared<std::string>();
    auto indices = std::make_shared<std::vector<std::string>>();
    auto reduce = std::make_shared<std::string>("mean");
    auto size = std::make_shared<std::string>();
    auto colormap = std::make_shared<std::string>("auto");
    addCommon(cmd, *a, true);
    cmd->add_option("--png", *png, "Output PNG file")->required();
    cmd->add_option("--axes", *axes, "Row and column axes I,J (default: the last two)");
    cmd->add_option("--index", *indices, "Fix axis D at index K (D=K, repeatable); other axes are reduced");
    cmd->add_option("--reduce", *reduce, "How to collapse the other axes and pooled cells: mean or maxabs")
        ->check(CLI::IsMember({"mean", "maxabs"}));
    cmd->add_option("--size", *size, "Largest thumbnail WxH (default 256x256)");
    cmd->add_option("--colormap", *colormap, "auto, viridis, magma, gray, coolwarm, rdbu");
    cmd->callback([&ctx, a, png, axes, indices, reduce, size, colormap] {
        HeatmapRequest req;
        req.colormap = *colormap;
        if (Status st = parseHeatmapOptions(*axes, *indices, *size, *reduce, req); !st.isOk()) {
            ctx.exitCode = reportError(st, a->json);
            return;
        }
        auto tensor = readTensorAt(a->path, a->key);
        if (!tensor) {
            ctx.exitCode = reportError(tensor.status(), a->json);
            return;
        }
        auto h = renderHeatmap(TensorView::of(*tensor), req);
        if (!h) {
            ctx.exitCode = reportPreviewError(h.status(), a->json);
            return;
        }
        if (a->verbose) std::cerr << "ckpt: heatmaps are computed on the cpu\n";
        if (Status st = writePng(*h, *png); !st.isOk()) {
            ctx.exitCode = reportError(st, a->json);
            return;
        }
        if (a->json) {
            nlohmann::json j = {{"key", displayableString(a->key)},
                                {"dtype", std::string(dataTypeName(tensor->dtype))},
                                {"shape", tensor->shape.dims},
                                {"png", *png},
                                {"width", h->width},
                                {"height", h->height},
                                {"row_axis", h->rowAxis},
                                {"col_axis", h->colAxis},
                                {"colormap", h->colormap},
                                {"lo", number(h->lo)},
                                {"hi", number(h->hi)}};
            j.update(deviceJson(h->computedOn));
            printJson(j);
            return;
        }
        std::cout << "wrote " << *png << " (" << h->width << "x" << h->height << ", " << h->colormap << ", " << fmt(h->lo)
                  << " .. " << fmt(h->hi) << ")\n";
    });
}

}  // namespace

void registerStats(CLI::App& app, CommandContext& ctx) { registerStatsCmd(app, ctx); }
void registerHistogram(CLI::App& app, CommandContext& ctx) { registerHistogramCmd(app, ctx); }
void registerPreview(CLI::App& app, CommandContext& ctx) { registerPreviewCmd(app, ctx); }

}  // namespace ckpt::cli
