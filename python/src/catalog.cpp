// The catalog (ckpt/catalog.h) as _ckpt functions returning dicts keyed
// like `ckpt catalog … --json`: add roots, scan, list, search. Each call
// opens the catalog file itself (the engine's Catalog is one per thread),
// the user's default one unless a path is given.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "ckpt/catalog.h"
#include "conversions.h"
#include "engine_call.h"
#include "python_errors.h"
#include "python_text.h"

namespace nb = nanobind;

namespace ckpt::python {
namespace {

std::unique_ptr<Catalog> openCatalog(const std::string& path) {
    std::string file = path;
    if (file.empty()) file = valueOrThrow(Catalog::defaultPath());
    // The default file's directory is created as `ckpt catalog` does; a
    // path given is taken as it is.
    return valueOrThrow(runReleased([&] { return Catalog::open(file, {.createDirectory = path.empty()}); }));
}

nb::object optionalDouble(const std::optional<double>& v) { return v ? nb::object(nb::float_(*v)) : nb::none(); }
nb::object textOrNone(const std::string& s) { return s.empty() ? nb::none() : nb::object(toPython(s)); }

nb::dict checkpointDict(const CatalogCheckpoint& c) {
    nb::dict d;
    d["prefix"] = toPython(c.prefix);
    d["directory"] = toPython(c.directory);
    d["name"] = toPython(c.name);
    d["step"] = optionalInt(c.step);
    d["mtime"] = c.modified;
    d["bytes"] = c.bytes;
    d["shards"] = c.shards;
    d["tensors"] = c.tensors;
    d["objects"] = c.objects;
    d["in_state_file"] = c.inStateFile;
    d["latest"] = c.isLatest;
    d["health"] = catalogHealthName(c.health());
    d["error"] = textOrNone(c.error);
    d["verified_at"] = optionalDouble(c.verifiedAt);
    d["verify_problems"] = c.verifyProblems;
    d["verify_message"] = textOrNone(c.verifyMessage);
    d["state_problem"] = textOrNone(c.stateProblem);
    d["scanned_at"] = c.scannedAt;
    return d;
}

nb::dict summaryDict(const CatalogScanSummary& s) {
    nb::dict d;
    d["directories"] = s.directories;
    d["checkpoints"] = s.checkpoints;
    d["added"] = s.added;
    d["updated"] = s.updated;
    d["unchanged"] = s.unchanged;
    d["missing"] = s.missing;
    d["unreadable"] = s.unreadable;
    d["verified"] = s.verified;
    d["damaged"] = s.damaged;
    d["tensor_rows"] = s.tensorRows;
    d["errors"] = stringList(s.errors);
    d["skipped"] = stringList(s.skipped);
    d["skipped_count"] = s.skippedCount;
    d["seconds"] = s.seconds;
    return d;
}

nb::dict scanDict(Catalog& catalog, const std::vector<std::string>& dirs, bool verify, nb::object progress) {
    auto summary = runCancellable<Result<CatalogScanSummary>>(
        [&](const CallContext& call) {
            CatalogScanOptions options;
            options.roots = dirs;
            options.verify = verify;
            options.progress = call.progress;
            options.cancel = call.cancel;
            return catalog.scan(options);
        },
        progress);
    return summaryDict(valueOrThrow(std::move(summary)));
}

nb::dict add(const std::vector<std::string>& dirs, const std::string& path, bool scan, bool verify, nb::object progress) {
    auto catalog = openCatalog(path);
    nb::list roots;
    for (const std::string& dir : dirs) {
        const CatalogRoot root = valueOrThrow(runReleased([&] { return catalog->addRoot(dir); }));
        roots.append(toPython(root.path));
    }
    nb::dict d;
    d["ok"] = true;
    d["catalog"] = toPython(catalog->path());
    d["added"] = roots;
    d["scan"] = scan ? nb::object(scanDict(*catalog, dirs, verify, progress)) : nb::none();
    return d;
}

nb::dict scan(const std::vector<std::string>& dirs, const std::string& path, bool verify, nb::object progress) {
    auto catalog = openCatalog(path);
    nb::dict d;
    d["ok"] = true;
    d["catalog"] = toPython(catalog->path());
    d["scan"] = scanDict(*catalog, dirs, verify, progress);
    return d;
}

nb::dict list(const std::string& directory, const std::string& path) {
    auto catalog = openCatalog(path);
    const auto roots = valueOrThrow(runReleased([&] { return catalog->roots(); }));
    const auto checkpoints = valueOrThrow(runReleased([&] { return catalog->checkpoints(directory); }));
    nb::list r, c;
    for (const CatalogRoot& root : roots) {
        nb::dict d;
        d["path"] = toPython(root.path);
        d["added_at"] = root.addedAt;
        d["last_scan_at"] = optionalDouble(root.lastScanAt);
        d["missing"] = root.missing;
        d["error"] = textOrNone(root.error);
        d["checkpoints"] = root.checkpoints;
        r.append(d);
    }
    for (const CatalogCheckpoint& ckpt : checkpoints) c.append(checkpointDict(ckpt));
    nb::dict d;
    d["catalog"] = toPython(catalog->path());
    d["roots"] = r;
    d["checkpoints"] = c;
    return d;
}

nb::dict search(const std::string& query, const std::string& path, int limit, int matches, bool exactTotals) {
    auto catalog = openCatalog(path);
    CatalogSearchOptions options;
    options.maxCheckpoints = limit;
    options.maxMatchesPerCheckpoint = matches;
    options.exactTotals = exactTotals;
    const CatalogSearchResult found = valueOrThrow(runReleased([&] { return catalog->search(query, options); }));
    nb::list hits;
    for (const CatalogSearchHit& h : found.hits) {
        nb::list ms;
        for (const CatalogSearchMatch& m : h.matches) {
            nb::dict md;
            md["key"] = toPython(m.key);
            md["object_path"] = toPython(m.objectPath);
            md["dtype"] = toPython(m.dtype);
            md["shape"] = toPython(m.shape);
            ms.append(md);
        }
        nb::dict hd;
        hd["checkpoint"] = checkpointDict(h.checkpoint);
        hd["matches"] = ms;
        hd["total_matches"] = h.totalMatches;
        hits.append(hd);
    }
    nb::dict d;
    d["query"] = toPython(found.query);
    d["fts_query"] = toPython(found.fullTextQuery);
    d["total_checkpoints"] = found.totalCheckpoints;
    d["total_matches"] = found.totalMatches;
    d["truncated"] = found.truncated;
    d["totals_exact"] = found.totalsExact;
    d["hits"] = hits;
    return d;
}

}  // namespace

void bindCatalog(nb::module_& m) {
    m.def("catalog_add", &add, nb::arg("dirs"), nb::arg("catalog"), nb::arg("scan"), nb::arg("verify"),
          nb::arg("progress").none(), "See ckpt.catalog_add: `ckpt catalog add --json` as a dict.");
    m.def("catalog_scan", &scan, nb::arg("dirs"), nb::arg("catalog"), nb::arg("verify"), nb::arg("progress").none(),
          "See ckpt.catalog_scan: `ckpt catalog scan --json` as a dict.");
    m.def("catalog_list", &list, nb::arg("directory"), nb::arg("catalog"),
          "See ckpt.catalog_list: `ckpt catalog list --json` as a dict.");
    m.def("catalog_search", &search, nb::arg("query"), nb::arg("catalog"), nb::arg("limit"), nb::arg("matches"),
          nb::arg("exact_totals"), "See ckpt.catalog_search: `ckpt catalog search --json` as a dict.");
}

}  // namespace ckpt::python
