// The results cache: see ckpt/catalog_cache.h. Payloads are JSON (NaN and
// infinities, which JSON lacks, are stored as strings) so a later build
// can read what an earlier one stored.

#include "ckpt/catalog_cache.h"

#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

#include "catalog/catalog_rows.h"
#include "ckpt/bundle_reader.h"
#include "ckpt/catalog.h"
#include "platform/crc32c.h"

namespace ckpt {
using nlohmann::json;
using sql::Statement;
namespace {

json number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

double numberFrom(const json& j) {
    if (j.is_number()) return j.get<double>();
    const std::string s = j.is_string() ? j.get<std::string>() : "nan";
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    return std::numeric_limits<double>::quiet_NaN();
}

json computedOnJson(const ComputedOn& c) { return {{"device", c.device}, {"device_name", c.deviceName}}; }
ComputedOn computedOnFrom(const json& j) {
    ComputedOn c;
    c.device = j.value("device", "");
    c.deviceName = j.value("device_name", "");
    return c;
}

std::string statsPayload(const TensorStats& s) {
    return json{{"count", s.count},
                {"finite", s.finiteCount},
                {"zeros", s.zeros},
                {"nans", s.nans},
                {"pos_infs", s.posInfs},
                {"neg_infs", s.negInfs},
                {"min", number(s.min)},
                {"max", number(s.max)},
                {"mean", number(s.mean)},
                {"std", number(s.std)},
                {"abs_max", number(s.absMax)},
                {"string_lengths", s.stringLengths},
                {"complex_magnitude", s.complexMagnitude},
                {"computed_on", computedOnJson(s.computedOn)}}
        .dump();
}

std::optional<TensorStats> statsFrom(const std::string& payload) {
    const json j = json::parse(payload, nullptr, false);
    if (!j.is_object()) return std::nullopt;
    TensorStats s;
    s.count = j.value("count", int64_t{0});
    s.finiteCount = j.value("finite", int64_t{0});
    s.zeros = j.value("zeros", int64_t{0});
    s.nans = j.value("nans", int64_t{0});
    s.posInfs = j.value("pos_infs", int64_t{0});
    s.negInfs = j.value("neg_infs", int64_t{0});
    s.min = numberFrom(j.value("min", json()));
    s.max = numberFrom(j.value("max", json()));
    s.mean = numberFrom(j.value("mean", json()));
    s.std = numberFrom(j.value("std", json()));
    s.absMax = numberFrom(j.value("abs_max", json()));
    s.stringLengths = j.value("string_lengths", false);
    s.complexMagnitude = j.value("complex_magnitude", false);
    s.computedOn = computedOnFrom(j.value("computed_on", json::object()));
    return s;
}

std::string histogramPayload(const Histogram& h) {
    json edges = json::array();
    for (double e : h.edges) edges.push_back(number(e));
    return json{{"lo", number(h.lo)},
                {"hi", number(h.hi)},
                {"edges", edges},
                {"counts", h.counts},
                {"below", h.below},
                {"above", h.above},
                {"nans", h.nans},
                {"string_lengths", h.stringLengths},
                {"computed_on", computedOnJson(h.computedOn)}}
        .dump();
}

std::optional<Histogram> histogramFrom(const std::string& payload) {
    const json j = json::parse(payload, nullptr, false);
    if (!j.is_object() || !j.contains("edges") || !j["edges"].is_array() || !j.contains("counts") || !j["counts"].is_array() ||
        j["edges"].size() != j["counts"].size() + 1)
        return std::nullopt;
    Histogram h;
    h.lo = numberFrom(j.value("lo", json()));
    h.hi = numberFrom(j.value("hi", json()));
    for (const json& e : j["edges"]) h.edges.push_back(numberFrom(e));
    for (const json& c : j["counts"]) {
        if (!c.is_number_integer()) return std::nullopt;
        h.counts.push_back(c.get<int64_t>());
    }
    h.below = j.value("below", int64_t{0});
    h.above = j.value("above", int64_t{0});
    h.nans = j.value("nans", int64_t{0});
    h.stringLengths = j.value("string_lengths", false);
    h.computedOn = computedOnFrom(j.value("computed_on", json::object()));
    return h;
}

// "histogram:64", "histogram:64:-1:1" (explicit range, exact digits).
std::string histogramKind(const HistogramRequest& r) {
    std::string kind = "histogram:" + std::to_string(r.bins);
    char buf[64];
    if (r.lo || r.hi) {
        std::snprintf(buf, sizeof buf, ":%.17g:%.17g", r.lo.value_or(std::nan("")), r.hi.value_or(std::nan("")));
        kind += buf;
    }
    return kind;
}

Result<Tensor> readValues(const BundleReader& bundle, const TensorInfo& info) { return bundle.read(info); }

std::string diffPayload(const TensorDiff& d) {
    json listed = json::array();
    for (const DifferingElement& e : d.firstMismatches) listed.push_back({e.index, e.a, e.b});
    return json{
        {"elements", d.elements},
        {"mismatches", d.mismatches},
        {"exact", d.exactCompare},
        {"tolerance", {number(d.tolerance.atol), number(d.tolerance.rtol), d.tolerance.exact, d.tolerance.nanEqual}},
        {"max_abs", number(d.maxAbsDiff)},
        {"max_abs_index", d.maxAbsIndex},
        {"max_rel", number(d.maxRelDiff)},
        {"max_rel_index", d.maxRelIndex},
        {"mean_abs", number(d.meanAbsDiff)},
        {"norms", {number(d.normA), number(d.normB), number(d.normDiff)}},
        {"rel_l2", number(d.relL2)},
        {"cosine", number(d.cosine)},
        {"nonfinite", {d.nansA, d.nansB, d.infsA, d.infsB, d.nansAppeared, d.nansDisappeared, d.infsAppeared, d.infsDisappeared}},
        {"listed", listed}}
        .dump();
}

std::optional<TensorDiff> diffFrom(const std::string& payload) {
    const json j = json::parse(payload, nullptr, false);
    auto arrayOf = [&](const char* key, size_t n) { return j.contains(key) && j[key].is_array() && j[key].size() == n; };
    if (!j.is_object() || !arrayOf("tolerance", 4) || !arrayOf("norms", 3) || !arrayOf("nonfinite", 8) || !j.contains("listed") ||
        !j["listed"].is_array())
        return std::nullopt;
    TensorDiff d;
    d.elements = j.value("elements", int64_t{0});
    d.mismatches = j.value("mismatches", int64_t{0});
    d.exactCompare = j.value("exact", false);
    d.tolerance = {numberFrom(j["tolerance"][0]), numberFrom(j["tolerance"][1]), j["tolerance"][2].get<bool>(),
                   j["tolerance"][3].get<bool>()};
    d.maxAbsDiff = numberFrom(j.value("max_abs", json()));
    d.maxAbsIndex = j.value("max_abs_index", int64_t{-1});
    d.maxRelDiff = numberFrom(j.value("max_rel", json()));
    d.maxRelIndex = j.value("max_rel_index", int64_t{-1});
    d.meanAbsDiff = numberFrom(j.value("mean_abs", json()));
    d.normA = numberFrom(j["norms"][0]);
    d.normB = numberFrom(j["norms"][1]);
    d.normDiff = numberFrom(j["norms"][2]);
    d.relL2 = numberFrom(j.value("rel_l2", json()));
    d.cosine = numberFrom(j.value("cosine", json()));
    const json& n = j["nonfinite"];
    for (const json& v : n)
        if (!v.is_number_integer()) return std::nullopt;
    d.nansA = n[0].get<int64_t>();
    d.nansB = n[1].get<int64_t>();
    d.infsA = n[2].get<int64_t>();
    d.infsB = n[3].get<int64_t>();
    d.nansAppeared = n[4].get<int64_t>();
    d.nansDisappeared = n[5].get<int64_t>();
    d.infsAppeared = n[6].get<int64_t>();
    d.infsDisappeared = n[7].get<int64_t>();
    for (const json& e : j["listed"]) {
        if (!e.is_array() || e.size() != 3 || !e[0].is_number_integer() || !e[1].is_string() || !e[2].is_string())
            return std::nullopt;
        d.firstMismatches.push_back({e[0].get<int64_t>(), e[1].get<std::string>(), e[2].get<std::string>()});
    }
    return d;
}

// "diff:<crc B>:<bytes B>:<atol>:<rtol>:<exact><nan-equal>:<listed>:<slice>"
std::string diffKind(const TensorIdentity& b, const TensorInfo& a, const DiffOptions& options) {
    const ResolvedTolerance t = toleranceFor(a.dtype, options.values.tolerance);
    char buf[160];
    std::snprintf(buf, sizeof buf, "diff:%08x:%llu:%.17g:%.17g:%d%d:%d:", static_cast<unsigned>(b.crc32c),
                  static_cast<unsigned long long>(b.bytes), t.atol, t.rtol, t.exact ? 1 : 0, t.nanEqual ? 1 : 0,
                  options.values.maxListed);
    return buf + options.slice.value_or("");
}

// The figure from the cache, else computed from the values and stored.
template <typename T, typename Compute, typename Encode, typename Decode>
Result<Cached<T>> throughCache(Catalog* catalog, const BundleReader& bundle, const TensorInfo& info, const std::string& kind,
                               Compute compute, Encode encode, Decode decode) {
    const std::optional<TensorIdentity> identity = tensorIdentity(info);
    std::optional<ResultsCache> cache;
    if (catalog && identity) cache.emplace(*catalog);
    if (cache) {
        auto hit = cache->get(*identity, kind);
        if (hit.ok() && *hit)
            if (std::optional<T> value = decode(**hit)) return Cached<T>{std::move(*value), true};
    }
    CKPT_ASSIGN_OR_RETURN(Tensor tensor, readValues(bundle, info));
    CKPT_ASSIGN_OR_RETURN(T value, compute(TensorView::of(tensor)));
    if (cache) (void)cache->put(*identity, kind, encode(value));  // a cache that cannot be written costs only time
    return Cached<T>{std::move(value), false};
}

}  // namespace

std::optional<TensorIdentity> tensorIdentity(const TensorInfo& info) {
    if (info.isPartitioned()) return std::nullopt;
    return TensorIdentity{platform::crc32cUnmask(info.region.maskedCrc32c), std::string(dataTypeShortName(info.dtype)),
                          info.shape.toString(), static_cast<uint64_t>(info.region.size)};
}

Result<std::optional<std::string>> ResultsCache::get(const TensorIdentity& id, std::string_view kind) {
    catalog::Database& db = *m_catalog.m_db;
    CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                          db.prepare("SELECT payload FROM catalog_results WHERE crc32c = ?1 AND dtype = ?2 AND "
                                     "shape = ?3 AND bytes = ?4 AND kind = ?5"));
    Statement st(db.handle(), stmt, db.path());
    st.bind(1, int64_t{id.crc32c}).bind(2, id.dtype).bind(3, id.shape).bind(4, static_cast<int64_t>(id.bytes)).bind(5, kind);
    CKPT_ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) return std::optional<std::string>();
    return std::optional<std::string>(st.text(0));
}

Status ResultsCache::put(const TensorIdentity& id, std::string_view kind, std::string_view payload) {
    catalog::Database& db = *m_catalog.m_db;
    auto stored = catalog::writeTransaction(db, [&]() -> Result<bool> {
        CKPT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                              db.prepare("INSERT OR REPLACE INTO catalog_results (crc32c, dtype, shape, bytes, kind, "
                                         "payload, computed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
        Statement st(db.handle(), stmt, db.path());
        st.bind(1, int64_t{id.crc32c})
            .bind(2, id.dtype)
            .bind(3, id.shape)
            .bind(4, static_cast<int64_t>(id.bytes))
            .bind(5, kind)
            .bind(6, payload)
            .bind(7, platform::unixSeconds());
        CKPT_RETURN_IF_ERROR(st.run());
        return true;
    });
    return stored.ok() ? okStatus() : stored.status();
}

std::optional<TensorDiff> CatalogDiffCache::find(const TensorInfo& a, const TensorInfo& b, const DiffOptions& options) {
    const auto idA = tensorIdentity(a);
    const auto idB = tensorIdentity(b);
    if (!idA || !idB) return std::nullopt;
    auto hit = m_cache.get(*idA, diffKind(*idB, a, options));
    if (!hit.ok() || !*hit) return std::nullopt;
    return diffFrom(**hit);
}

void CatalogDiffCache::store(const TensorInfo& a, const TensorInfo& b, const DiffOptions& options, const TensorDiff& diff) {
    const auto idA = tensorIdentity(a);
    const auto idB = tensorIdentity(b);
    if (!idA || !idB || diff.fromChecksums) return;
    (void)m_cache.put(*idA, diffKind(*idB, a, options), diffPayload(diff));  // a cache that cannot be written costs only time
}

Result<Cached<TensorStats>> cachedStats(Catalog* catalog, const BundleReader& bundle, const TensorInfo& info,
                                        const PreviewOptions& options) {
    return throughCache<TensorStats>(
        catalog, bundle, info, "stats", [&](const TensorView& v) { return computeStats(v, options); }, statsPayload, statsFrom);
}

Result<Cached<Histogram>> cachedHistogram(Catalog* catalog, const BundleReader& bundle, const TensorInfo& info,
                                          const HistogramRequest& request, const PreviewOptions& options) {
    auto result = throughCache<Histogram>(
        catalog, bundle, info, histogramKind(request), [&](const TensorView& v) { return computeHistogram(v, request, options); },
        histogramPayload, histogramFrom);
    if (result.ok()) result->value.logCounts = request.logCounts;  // presentation, not part of the figure
    return result;
}

}  // namespace ckpt
