// tessel lowering glue, Hopper path: `f = dma.copy.swiz<SWIZ> src => shared;` feeding WGMMAs.
// Needs prelude.cuh and sm90_hopper.cuh.
#pragma once

// The [ROWS, COLS] tile at (r0, c0) of the row-major rows × cols tensor `src` into the
// 1024-byte aligned shared buffer `dst`, in the layout a TMA load with swizzle SWIZ writes (and
// the WGMMA descriptors of that swizzle read): each row is one SWIZ-byte span, and its 16-byte
// chunk c lands at byte tsl_swizzle<SWIZ>(r * SWIZ + 16 c). The block's THREADS threads take
// the chunks in turn; a chunk wholly inside the tensor (and 16-byte aligned there) is one
// 16-byte load, any other is read element by element with zeros outside, as TMA fills them.
// Each thread then orders its generic-proxy stores before the async proxy's reads; the
// caller's barrier makes the tile whole for every thread's WGMMAs.
template <int ROWS, int COLS, int SWIZ, int THREADS, typename T>
TSL_DEVICE void tsl_copy_g2s_swz(T *dst, const T *src, int r0, int c0, int rows, int cols) {
  constexpr int V = 16 / (int)sizeof(T);
  static_assert(COLS * (int)sizeof(T) == SWIZ, "a swizzled row is one swizzle span");
  constexpr int CPR = COLS / V;
  constexpr int CHUNKS = ROWS * CPR;
  const bool aligned = (cols % V == 0) && (c0 % V == 0) &&
                       ((reinterpret_cast<unsigned long long>(src) & 15ull) == 0);
  unsigned char *base = reinterpret_cast<unsigned char *>(dst);
  for (int i = threadIdx.x; i < CHUNKS; i += THREADS) {
    const int r = i / CPR, c = (i % CPR) * V;
    const int gr = r0 + r, gc = c0 + c;
    union {
      uint4 u;
      T e[V];
    } chunk;
    if (aligned && gr < rows && gc + V <= cols) {
      chunk.u = *reinterpret_cast<const uint4 *>(src + (long long)gr * cols + gc);
    } else {
      chunk.u = make_uint4(0u, 0u, 0u, 0u);
      if (gr < rows) {
#pragma unroll
        for (int v = 0; v < V; ++v)
          if (gc + v < cols) chunk.e[v] = src[(long long)gr * cols + gc + v];
      }
    }
    *reinterpret_cast<uint4 *>(base + tsl_swizzle<SWIZ>((tsl_u32)(r * SWIZ + c * (int)sizeof(T)))) = chunk.u;
  }
  tsl_fence_proxy_async();
}
