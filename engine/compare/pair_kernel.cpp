#include "compare/pair_kernel.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "compare/pair_blocks.h"

namespace ckpt::compare {
namespace {

using preview::ElementKind;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <typename T>
std::string numberText(T value) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, value);
    return std::string(buf, res.ptr);
}

// Element i as users read it: integers exactly, floats in their shortest
// round-trip form at their own precision, complex as "re+imj".
std::string elementText(ElementKind kind, const unsigned char* base, int64_t i) {
    auto at = [&](auto tag) {
        using T = decltype(tag);
        T v;
        std::memcpy(&v, base + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
        return v;
    };
    switch (kind) {
    case ElementKind::F32: return numberText(at(float{}));
    case ElementKind::F64: return numberText(at(double{}));
    case ElementKind::F16: return numberText(static_cast<float>(preview::halfToDouble(at(uint16_t{}))));
    case ElementKind::BF16: return numberText(static_cast<float>(preview::bfloat16ToDouble(at(uint16_t{}))));
    case ElementKind::I8: return numberText(static_cast<int>(at(int8_t{})));
    case ElementKind::I16: return numberText(at(int16_t{}));
    case ElementKind::I32: return numberText(at(int32_t{}));
    case ElementKind::I64: return numberText(at(int64_t{}));
    case ElementKind::U8: return numberText(static_cast<unsigned>(at(uint8_t{})));
    case ElementKind::U16: return numberText(at(uint16_t{}));
    case ElementKind::U32: return numberText(at(uint32_t{}));
    case ElementKind::U64: return numberText(at(uint64_t{}));
    case ElementKind::Bool: return at(uint8_t{}) != 0 ? "true" : "false";
    case ElementKind::C64: {
        float p[2];
        std::memcpy(p, base + i * 8, 8);
        return numberText(p[0]) + (p[1] < 0 || std::signbit(p[1]) ? "" : "+") + numberText(p[1]) + "j";
    }
    case ElementKind::C128: {
        double p[2];
        std::memcpy(p, base + i * 16, 16);
        return numberText(p[0]) + (p[1] < 0 || std::signbit(p[1]) ? "" : "+") + numberText(p[1]) + "j";
    }
    }
    return {};
}

bool isFinite(double x) { return x - x == 0.0; }

// Counts a pair where at least one side is NaN or infinite; whether it
// matches. NaN matches NaN when the rule says so; an infinity only itself.
bool nonFinitePair(double x, double y, bool nanEqual, PairPartial& p) {
    const bool nanX = std::isnan(x), nanY = std::isnan(y);
    const bool infX = std::isinf(x), infY = std::isinf(y);
    p.nansA += nanX;
    p.nansB += nanY;
    p.infsA += infX;
    p.infsB += infY;
    p.nansAppeared += nanY && !nanX;
    p.nansDisappeared += nanX && !nanY;
    p.infsAppeared += infY && !infX;
    p.infsDisappeared += infX && !infY;
    if (nanX && nanY) return nanEqual;
    return infX && infY && x == y;
}

struct RunState {
    PairPartial& p;
    const ResolvedTolerance& tol;
    int maxListed;
    ElementKind kind;
    const unsigned char* a;
    const unsigned char* b;
    int64_t first;

    void mismatch(int64_t i) {
        ++p.mismatches;
        if (static_cast<int>(p.listed.size()) < maxListed)
            p.listed.push_back({first + i, elementText(kind, a, i), elementText(kind, b, i)});
    }
    // A finite pair's figures; 'magnitudeB' is |b|, 'dot' Re(a * conj(b)).
    void finitePair(int64_t i, double absDiff, double sqA, double sqB, double dot, double magnitudeB) {
        ++p.finitePairs;
        p.sumAbs += absDiff;
        p.sumSqDiff += absDiff * absDiff;
        p.sumSqA += sqA;
        p.sumSqB += sqB;
        p.dot += dot;
        if (absDiff > p.maxAbs) {
            p.maxAbs = absDiff;
            p.maxAbsIndex = first + i;
        }
        const double rel = magnitudeB > 0 ? absDiff / magnitudeB : (absDiff > 0 ? kInf : 0.0);
        if (rel > p.maxRel) {
            p.maxRel = rel;
            p.maxRelIndex = first + i;
        }
    }
};

// One element at a time: every rule exactly as documented. The reference
// for fastRun, and what it falls back to for blocks with NaN or Inf.
template <ElementKind K>
void realRun(RunState& s, int64_t begin, int64_t end) {
    constexpr bool kExactKind = K != ElementKind::F32 && K != ElementKind::F64 && K != ElementKind::F16 && K != ElementKind::BF16;
    const bool exact = kExactKind || s.tol.exact;
    const int64_t size = preview::elementSize(K);
    for (int64_t i = begin; i < end; ++i) {
        const double x = preview::loadElement<K>(s.a, i), y = preview::loadElement<K>(s.b, i);
        bool matches;
        if (isFinite(x) && isFinite(y)) {
            const double d = std::fabs(x - y);
            s.finitePair(i, d, x * x, y * y, x * y, std::fabs(y));
            // Integers compare their bits: doubles lose int64 values past 2^53.
            if constexpr (kExactKind) matches = std::memcmp(s.a + i * size, s.b + i * size, static_cast<size_t>(size)) == 0;
            else matches = exact ? x == y : d <= s.tol.atol + s.tol.rtol * std::fabs(y);
        } else {
            matches = nonFinitePair(x, y, s.tol.nanEqual, s.p);
        }
        if (!matches) s.mismatch(i);
    }
}

// Float kinds a block at a time (pair_blocks.h), with the element rules
// kept exactly: sums come from the lanes in a fixed order, and wherever the
// block's figures cannot decide (a new largest |a-b| or relative
// difference, mismatches still to list) the block is scanned again one
// element at a time with realRun's arithmetic.
template <ElementKind K>
void fastRun(RunState& s, int64_t begin, int64_t end) {
    const int64_t size = preview::elementSize(K);
    PairPartial& p = s.p;
    for (int64_t b0 = begin; b0 < end; b0 += kBlockElements) {
        const int64_t n = std::min(kBlockElements, end - b0);
        const int64_t full = n / kLanes * kLanes;
        if (full > 0) {
            const double relBar = p.maxRel > 0 ? p.maxRel * (1 - 1e-9) : 0.0;
            BlockFigures f;
            sumBlock(K, s.a + b0 * size, s.b + b0 * size, full, s.tol.atol, s.tol.rtol, relBar, f);
            double mismatches = 0, relCandidates = 0, blockMax = -1;
            for (int l = 0; l < kLanes; ++l) {
                mismatches += f.mismatches[l];
                relCandidates += f.relCandidates[l];
                blockMax = std::max(blockMax, f.maxAbs[l]);
            }
            if (!f.allFinite()) {
                realRun<K>(s, b0, b0 + full);
            } else {
                double sums[5] = {0, 0, 0, 0, 0};
                for (int l = 0; l < kLanes; ++l) {
                    sums[0] += f.sumAbs[l];
                    sums[1] += f.sumSqDiff[l];
                    sums[2] += f.sumSqA[l];
                    sums[3] += f.sumSqB[l];
                    sums[4] += f.dot[l];
                }
                p.sumAbs += sums[0];
                p.sumSqDiff += sums[1];
                p.sumSqA += sums[2];
                p.sumSqB += sums[3];
                p.dot += sums[4];
                p.finitePairs += full;
                p.mismatches += static_cast<int64_t>(mismatches);
                const bool list = mismatches > 0 && static_cast<int>(p.listed.size()) < s.maxListed;
                const bool newMax = blockMax > p.maxAbs;
                const bool newRel = relCandidates > 0 || p.maxRel < 0;
                if (list || newMax || newRel) {
                    for (int64_t i = b0; i < b0 + full; ++i) {
                        const double x = preview::loadElement<K>(s.a, i), y = preview::loadElement<K>(s.b, i);
                        const double ad = std::fabs(x - y), ab = std::fabs(y);
                        if (ad > p.maxAbs) {
                            p.maxAbs = ad;
                            p.maxAbsIndex = s.first + i;
                        }
                        const double rel = ab > 0 ? ad / ab : (ad > 0 ? kInf : 0.0);
                        if (rel > p.maxRel) {
                            p.maxRel = rel;
                            p.maxRelIndex = s.first + i;
                        }
                        if (list && ad > s.tol.atol + s.tol.rtol * ab && static_cast<int>(p.listed.size()) < s.maxListed)
                            p.listed.push_back({s.first + i, elementText(K, s.a, i), elementText(K, s.b, i)});
                    }
                }
            }
        }
        if (full < n) realRun<K>(s, b0 + full, b0 + n);
    }
}

// fastRun's sums alone: the same blocks, lanes and fold, so each sum keeps
// fastRun's bits, and the blocks it redoes element by element (NaN, Inf,
// overflow) are redone here too; no maxima, mismatches or dot product.
// fastRun's sums alone: the same blocks, lanes and fold, so each sum keeps
// fastRun's bits, and the blocks it redoes element by element (NaN, Inf,
// overflow) are redone here too; no maxima, mismatches or dot product.
// Whole blocks go kChangeBlocks at a time, folded in order.
template <ElementKind K>
void sumsRun(RunState& s, int64_t begin, int64_t end) {
    const int64_t size = preview::elementSize(K);
    PairPartial& p = s.p;
    ChangeFigures f[kChangeBlocks];
    for (int64_t b0 = begin; b0 < end;) {
        const bool group = end - b0 >= kChangeBlocks * kBlockElements;
        const int64_t n = std::min(kBlockElements, end - b0);
        const int64_t full = n / kLanes * kLanes;
        if (full > 0) sumChangeBlocks(K, s.a + b0 * size, s.b + b0 * size, full, group ? kChangeBlocks : 1, f);
        for (int j = 0; j < (group ? kChangeBlocks : 1); ++j, b0 += kBlockElements) {
            const int64_t blockFull = group ? kBlockElements : full;
            if (blockFull > 0 && !f[j].allFinite()) {
                realRun<K>(s, b0, b0 + blockFull);
            } else if (blockFull > 0) {
                double sums[4] = {0, 0, 0, 0};
                for (int l = 0; l < kLanes; ++l) {
                    sums[0] += f[j].sumAbs[l];
                    sums[1] += f[j].sumSqDiff[l];
                    sums[2] += f[j].sumSqA[l];
                    sums[3] += f[j].sumSqB[l];
                }
                p.sumAbs += sums[0];
                p.sumSqDiff += sums[1];
                p.sumSqA += sums[2];
                p.sumSqB += sums[3];
                p.finitePairs += blockFull;
            }
            if (!group && full < n) realRun<K>(s, b0 + full, b0 + n);
        }
    }
}

template <ElementKind K>
void complexRun(RunState& s, int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
        double a[2], b[2];
        if constexpr (K == ElementKind::C64) {
            float fa[2], fb[2];
            std::memcpy(fa, s.a + i * 8, 8);
            std::memcpy(fb, s.b + i * 8, 8);
            a[0] = fa[0], a[1] = fa[1], b[0] = fb[0], b[1] = fb[1];
        } else {
            std::memcpy(a, s.a + i * 16, 16);
            std::memcpy(b, s.b + i * 16, 16);
        }
        bool matches;
        if (isFinite(a[0]) && isFinite(a[1]) && isFinite(b[0]) && isFinite(b[1])) {
            const double d = std::hypot(a[0] - b[0], a[1] - b[1]);
            const double magB = std::hypot(b[0], b[1]);
            s.finitePair(i, d, a[0] * a[0] + a[1] * a[1], b[0] * b[0] + b[1] * b[1], a[0] * b[0] + a[1] * b[1], magB);
            matches = s.tol.exact ? (a[0] == b[0] && a[1] == b[1]) : d <= s.tol.atol + s.tol.rtol * magB;
        } else {
            // A component that is NaN makes the element NaN; else an infinite one, infinite.
            auto collapse = [](const double* v) {
                if (std::isnan(v[0]) || std::isnan(v[1])) return kNaN;
                return std::isinf(v[0]) ? v[0] : (std::isinf(v[1]) ? v[1] : 0.0);
            };
            const double x = collapse(a), y = collapse(b);
            matches = nonFinitePair(x, y, s.tol.nanEqual, s.p);
        }
        if (!matches) s.mismatch(i);
    }
}

}  // namespace

SliceRuns::SliceRuns(const TensorShape& shape, const DiffSlice& slice) : m_all(false), m_dims(shape.dims) {
    m_ranges.reserve(m_dims.size());
    for (size_t d = 0; d < m_dims.size(); ++d)
        m_ranges.push_back(d < slice.ranges.size() ? slice.ranges[d] : std::pair<int64_t, int64_t>{0, m_dims[d]});
}

int64_t SliceRuns::selectedCount(int64_t total) const {
    if (m_all) return total;
    int64_t n = 1;
    for (const auto& [lo, hi] : m_ranges) n *= std::max<int64_t>(0, hi - lo);
    return n;
}

bool comparesExactly(ElementKind kind) {
    switch (kind) {
    case ElementKind::F32:
    case ElementKind::F64:
    case ElementKind::F16:
    case ElementKind::BF16:
    case ElementKind::C64:
    case ElementKind::C128: return false;
    default: return true;
    }
}

void accumulatePairs(const PairRun& run, const SliceRuns& slice, const ResolvedTolerance& tolerance, int maxListed,
                     PairPartial& out) {
    RunState state{out, tolerance, maxListed, run.kind, run.a, run.b, run.first};
    slice.forEach(run.first, run.first + run.count, [&](int64_t begin, int64_t end) {
        out.elements += end - begin;
        const int64_t b = begin - run.first, e = end - run.first;
        preview::dispatchKind(run.kind, [&]<ElementKind K>() {
            if constexpr (K == ElementKind::C64 || K == ElementKind::C128) complexRun<K>(state, b, e);
            else if constexpr (K == ElementKind::F32 || K == ElementKind::F64 || K == ElementKind::BF16) fastRun<K>(state, b, e);
            else realRun<K>(state, b, e);
        });
    });
}

void accumulateSums(const PairRun& run, const ResolvedTolerance& tolerance, PairPartial& out) {
    if (run.kind != ElementKind::F32 && run.kind != ElementKind::F64 && run.kind != ElementKind::BF16) {
        accumulatePairs(run, SliceRuns(), tolerance, 0, out);
        return;
    }
    RunState state{out, tolerance, 0, run.kind, run.a, run.b, run.first};
    out.elements += run.count;
    preview::dispatchKind(run.kind, [&]<ElementKind K>() {
        if constexpr (K == ElementKind::F32 || K == ElementKind::F64 || K == ElementKind::BF16) sumsRun<K>(state, 0, run.count);
    });
}

void accumulateStringPairs(std::span<const std::string> a, std::span<const std::string> b, const SliceRuns& slice, int maxListed,
                           PairPartial& out) {
    slice.forEach(0, static_cast<int64_t>(std::min(a.size(), b.size())), [&](int64_t begin, int64_t end) {
        out.elements += end - begin;
        for (int64_t i = begin; i < end; ++i) {
            const auto& x = a[static_cast<size_t>(i)];
            const auto& y = b[static_cast<size_t>(i)];
            if (x == y) continue;
            ++out.mismatches;
            if (static_cast<int>(out.listed.size()) < maxListed) out.listed.push_back({i, x, y});
        }
    });
}

void mergePartials(PairPartial& into, PairPartial&& next, int maxListed) {
    into.elements += next.elements;
    into.mismatches += next.mismatches;
    into.finitePairs += next.finitePairs;
    into.sumAbs += next.sumAbs;
    into.sumSqA += next.sumSqA;
    into.sumSqB += next.sumSqB;
    into.sumSqDiff += next.sumSqDiff;
    into.dot += next.dot;
    // Strictly greater: the earliest index wins ties, as numpy.argmax.
    if (next.maxAbs > into.maxAbs) {
        into.maxAbs = next.maxAbs;
        into.maxAbsIndex = next.maxAbsIndex;
    }
    if (next.maxRel > into.maxRel) {
        into.maxRel = next.maxRel;
        into.maxRelIndex = next.maxRelIndex;
    }
    into.nansA += next.nansA;
    into.nansB += next.nansB;
    into.infsA += next.infsA;
    into.infsB += next.infsB;
    into.nansAppeared += next.nansAppeared;
    into.nansDisappeared += next.nansDisappeared;
    into.infsAppeared += next.infsAppeared;
    into.infsDisappeared += next.infsDisappeared;
    for (auto& e : next.listed) {
        if (static_cast<int>(into.listed.size()) >= maxListed) break;
        into.listed.push_back(std::move(e));
    }
}

TensorDiff finishDiff(PairPartial&& p, const ResolvedTolerance& tolerance, bool exactCompare) {
    TensorDiff d;
    d.elements = p.elements;
    d.mismatches = p.mismatches;
    d.exactCompare = exactCompare;
    d.tolerance = tolerance;
    if (p.finitePairs > 0) {
        d.maxAbsDiff = p.maxAbs;
        d.maxAbsIndex = p.maxAbsIndex;
        d.maxRelDiff = p.maxRel;
        d.maxRelIndex = p.maxRelIndex;
        d.meanAbsDiff = p.sumAbs / static_cast<double>(p.finitePairs);
    }
    d.normA = std::sqrt(p.sumSqA);
    d.normB = std::sqrt(p.sumSqB);
    d.normDiff = std::sqrt(p.sumSqDiff);
    d.relL2 = d.normA > 0 ? d.normDiff / d.normA : (d.normDiff > 0 ? kInf : 0.0);
    d.cosine = d.normA > 0 && d.normB > 0 ? p.dot / (d.normA * d.normB) : kNaN;
    d.nansA = p.nansA;
    d.nansB = p.nansB;
    d.infsA = p.infsA;
    d.infsB = p.infsB;
    d.nansAppeared = p.nansAppeared;
    d.nansDisappeared = p.nansDisappeared;
    d.infsAppeared = p.infsAppeared;
    d.infsDisappeared = p.infsDisappeared;
    d.firstMismatches = std::move(p.listed);
    return d;
}

}  // namespace ckpt::compare
