#pragma once
// The CPU backend's float32 fast paths: the common case of a preview (a
// float32 weight tensor) gets hand-vectorized passes, every other dtype the
// generic loops in cpu_backend.cpp. Histogram counts are identical to the
// generic loops' (numpy's exact bin rule wherever the shortcut could be
// wrong), and every instruction set gives the same bits.

#include <cstdint>
#include <limits>

#include "preview/preview_backend.h"

namespace ckpt::preview {

// The instruction sets the fast paths come in. All give identical results;
// tests run each one the CPU supports against the others.
enum class CpuIsa { Portable, Avx2 };
bool cpuSupports(CpuIsa isa);
CpuIsa bestCpuIsa();  // the widest this CPU (and OS) supports

// One thread's totals over the tiles fastTileF32 accepted.
struct FastTotals {
    float mn = std::numeric_limits<float>::infinity();
    float mx = -std::numeric_limits<float>::infinity();
    int64_t zeros = 0, tiles = 0;
};

// A whole tile (kTileElements floats): its partial from shifted one-pass
// sums (within ~1e-11 relative of the generic two-pass tile's, identical on
// every ISA), with min/max/zeros added to totals. Returns false, touching
// nothing, when the tile holds a NaN or Inf or its sums cancelled too far
// to trust; the caller then takes the generic tile.
bool fastTileF32(const float* tile, TilePartial& out, FastTotals& totals, CpuIsa isa = bestCpuIsa());

// numpy.histogram's counts of n floats over spec, written to out (counts
// sized spec.bins, plus below/above/NaN).
void histogramF32(const float* p, int64_t n, const HistogramSpec& spec, HistogramCounts& out, CpuIsa isa = bestCpuIsa());

}  // namespace ckpt::preview
