// tessel lowering glue, SIMT path, register tiles: 16-byte vector copies between global memory,
// shared memory and a thread's registers (`dma.copy` with a `local` side), the cooperative copy
// into a transposed shared tile (`dma.copy … => t.transpose()`, synchronous or staged through
// registers), the interior fast path of `dma.copy.async`, and warp reductions (`reduce.sum x :
// group`). Needs prelude.cuh, sm80_async.cuh and lowering/simt.cuh (tsl_ld_or_zero).
//
// Register tiles are arrays indexed by compile-time constants only (the loops around them are
// unrolled), so they live in registers: every loop here is `#pragma unroll`ed over template
// extents. Vector accesses go through tsl_vec16: 16 bytes of T, 16-byte aligned, which the
// compiler turns into one LDG.E.128 / LDS.128 / STS.128 / STG.E.128.
#pragma once

template <typename T> struct alignas(16) tsl_vec16 { T v[16 / sizeof(T)]; };

// Per-thread copy of the [ROWS, COLS] tile at (r0, c0) of a row-major [rows, cols] global tensor
// into registers (element (r, c) to dst[r * DLD + c]): one 16-byte load per row chunk when the
// chunk is inside the tensor and 16-byte aligned (cols and c0 multiples of 16 / sizeof(T)),
// zero-filled element loads otherwise (ragged edges, odd leading dimensions).
template <int ROWS, int COLS, int DLD, typename T>
TSL_DEVICE void tsl_copy_g2r(T *dst, const T *src, int r0, int c0, int rows, int cols) {
  constexpr int V = 16 / sizeof(T);
  const bool aligned = (cols % V == 0) && (c0 % V == 0);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
#pragma unroll
    for (int c = 0; c < COLS; c += V) {
      if (COLS % V == 0 && aligned && r0 + r < rows && c0 + c + V <= cols) {
        const tsl_vec16<T> t =
            *reinterpret_cast<const tsl_vec16<T> *>(src + (long long)(r0 + r) * cols + c0 + c);
#pragma unroll
        for (int v = 0; v < V; ++v)
          if (c + v < COLS) dst[r * DLD + c + v] = t.v[v];
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v)
          if (c + v < COLS) dst[r * DLD + c + v] = tsl_ld_or_zero(src, r0 + r, c0 + c + v, rows, cols);
      }
    }
  }
}

// Per-thread store of registers (element (r, c) from src[r * SLD + c]) into the [ROWS, COLS]
// tile at (r0, c0) of a row-major [rows, cols] global tensor: 16-byte stores when the row chunk
// is inside and aligned, guarded element stores otherwise.
template <int ROWS, int COLS, int SLD, typename T>
TSL_DEVICE void tsl_copy_r2g(T *dst, const T *src, int r0, int c0, int rows, int cols) {
  constexpr int V = 16 / sizeof(T);
  const bool aligned = (cols % V == 0) && (c0 % V == 0);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
#pragma unroll
    for (int c = 0; c < COLS; c += V) {
      if (COLS % V == 0 && aligned && r0 + r < rows && c0 + c + V <= cols) {
        tsl_vec16<T> t;
#pragma unroll
        for (int v = 0; v < V; ++v) t.v[v] = src[r * SLD + c + v];
        *reinterpret_cast<tsl_vec16<T> *>(dst + (long long)(r0 + r) * cols + c0 + c) = t;
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v)
          if (c + v < COLS) tsl_st_guarded(dst, r0 + r, c0 + c + v, rows, cols, src[r * SLD + c + v]);
      }
    }
  }
}

// Per-thread copy between on-chip tiles (shared <-> registers, registers <-> registers):
// element (r, c) of a [ROWS, COLS] tile from src[r * SLD + c] to dst[r * DLD + c]. VEC (a
// compile-time fact the lowering proves from the tile's origin and the shapes) says the shared
// side's rows start 16-byte aligned; then each row moves in 16-byte accesses (LDS.128 /
// STS.128), otherwise element by element.
template <int ROWS, int COLS, int SLD, int DLD, bool VEC, typename T>
TSL_DEVICE void tsl_copy_tile(T *dst, const T *src) {
  constexpr int V = 16 / sizeof(T);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    if constexpr (VEC && COLS % V == 0) {
#pragma unroll
      for (int c = 0; c < COLS; c += V) {
        const tsl_vec16<T> t = *reinterpret_cast<const tsl_vec16<T> *>(src + r * SLD + c);
#pragma unroll
        for (int v = 0; v < V; ++v) dst[r * DLD + c + v] = t.v[v];
      }
    } else {
#pragma unroll
      for (int c = 0; c < COLS; ++c) dst[r * DLD + c] = src[r * SLD + c];
    }
  }
}

// The same for a shared destination (registers -> shared): VEC says the shared rows start
// 16-byte aligned, so each row is written with 16-byte stores (STS.128).
template <int ROWS, int COLS, int SLD, int DLD, bool VEC, typename T>
TSL_DEVICE void tsl_copy_tile_st(T *dst, const T *src) {
  constexpr int V = 16 / sizeof(T);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    if constexpr (VEC && COLS % V == 0) {
#pragma unroll
      for (int c = 0; c < COLS; c += V) {
        tsl_vec16<T> t;
#pragma unroll
        for (int v = 0; v < V; ++v) t.v[v] = src[r * SLD + c + v];
        *reinterpret_cast<tsl_vec16<T> *>(dst + r * DLD + c) = t;
      }
    } else {
#pragma unroll
      for (int c = 0; c < COLS; ++c) dst[r * DLD + c] = src[r * SLD + c];
    }
  }
}

// ---- copies into a transposed shared tile (`dma.copy … => t.transpose()`) ---------------------
// The [ROWS, COLS] tile at (r0, c0) of a row-major [rows, cols] global tensor goes to a shared
// tile stored transposed (element (r, c) to dst[c * LD + r]): all THREADS threads of the block
// take 16-byte chunks of it, each loads its chunks into registers (LDG.E.128; zero-filled
// element loads for chunks outside the tensor or misaligned) and stores every chunk down a
// column of the shared tile (V scalar stores).
//
// Which thread takes which chunk (tsl_t_map). Row by row (chunk q at row q / (COLS / V)) keeps
// the global loads coalesced, but when LD is a multiple of 32 floats the column stores of lanes
// on one row all hit one bank. A padded tile (S = LD % 32 != 0, 4-byte elements) is taken in
// blocks instead: the 32 lanes of a warp take RW consecutive rows by CW = 32 / RW consecutive
// chunks, and lane (r, cc) stores to bank (4 S cc + r + const) % 32 — one-to-one for RW =
// min(32, 4 lowbit(S)): padded by 4 floats (LD % 32 == 4), 16 rows by 2 chunks, every store
// conflict-free and every row read in whole 32-byte sectors.
template <int ROWS, int COLS, int LD, int THREADS, typename T> struct tsl_t_map {
  static constexpr int V = 16 / sizeof(T);            // elements per chunk
  static constexpr int CPR = COLS / V;                // chunks per row
  static constexpr int CHUNKS = ROWS * CPR;
  static constexpr int PER_THREAD = (CHUNKS + THREADS - 1) / THREADS;
  static constexpr int S = LD % 32;
  static constexpr int RW = S == 0 ? 32 : tsl_min(32, 4 * (S & -S));
  static constexpr int CW = 32 / RW;
  static constexpr bool BLOCKED =
      sizeof(T) == 4 && S != 0 && THREADS % 32 == 0 && ROWS % RW == 0 && CPR % CW == 0;
  static_assert(COLS % V == 0, "transposed tile rows must be whole 16-byte chunks");
  // Row and column of chunk q (q = j * THREADS + threadIdx.x).
  static TSL_DEVICE void at(int q, int &r, int &c) {
    if constexpr (BLOCKED) {
      const int lane = q % 32, blk = q / 32;
      r = (blk % (ROWS / RW)) * RW + lane % RW;
      c = ((blk / (ROWS / RW)) * CW + lane / RW) * V;
    } else {
      r = q / CPR;
      c = (q % CPR) * V;
    }
  }
};

// This thread's chunks of the tile, into registers: unguarded 16-byte loads when the whole tile
// is inside the tensor and aligned (the interior: one test per tile), else per-chunk tests.
// EVEN (a loop versioned by the lowering, see tsl_copy_g2s_async): the tile lies wholly inside
// the tensor or wholly past its end, 16-byte aligned — one predicate, no branch; zeros past it.
template <int ROWS, int COLS, int LD, int THREADS, bool EVEN = false, typename T>
TSL_DEVICE void tsl_t_load(tsl_vec16<T> (&regs)[tsl_t_map<ROWS, COLS, LD, THREADS, T>::PER_THREAD],
                           const T *src, int r0, int c0, int rows, int cols) {
  using Map = tsl_t_map<ROWS, COLS, LD, THREADS, T>;
  constexpr int V = Map::V;
  if constexpr (EVEN) {
    // Kept apart from the interior path below: folding both into one (`EVEN || (aligned &&
    // inside)`) changes the SASS of the SGEMM k6, k7 and k8 general loops for the worse.
    const bool inside = r0 + ROWS <= rows && c0 + COLS <= cols;
    const T *base = inside ? src + (long long)r0 * cols + c0 : src;
#pragma unroll
    for (int j = 0; j < Map::PER_THREAD; ++j) {
      const int q = j * THREADS + threadIdx.x;
      if (Map::CHUNKS % THREADS == 0 || q < Map::CHUNKS) {
        int r, c;
        Map::at(q, r, c);
        tsl_vec16<T> t = {};
        if (inside) t = *reinterpret_cast<const tsl_vec16<T> *>(base + (long long)r * cols + c);
        regs[j] = t;
      }
    }
    return;
  }
  const bool aligned = (cols % V == 0) && (c0 % V == 0);
  if (aligned && r0 + ROWS <= rows && c0 + COLS <= cols) {
    const T *base = src + (long long)r0 * cols + c0;
#pragma unroll
    for (int j = 0; j < Map::PER_THREAD; ++j) {
      const int q = j * THREADS + threadIdx.x;
      if (Map::CHUNKS % THREADS == 0 || q < Map::CHUNKS) {
        int r, c;
        Map::at(q, r, c);
        regs[j] = *reinterpret_cast<const tsl_vec16<T> *>(base + (long long)r * cols + c);
      }
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < Map::PER_THREAD; ++j) {
    const int q = j * THREADS + threadIdx.x;
    if (Map::CHUNKS % THREADS == 0 || q < Map::CHUNKS) {
      int r, c;
      Map::at(q, r, c);
      const int gr = r0 + r, gc = c0 + c;
      if (aligned && gr < rows && gc + V <= cols) {
        regs[j] = *reinterpret_cast<const tsl_vec16<T> *>(src + (long long)gr * cols + gc);
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v) regs[j].v[v] = tsl_ld_or_zero(src, gr, gc + v, rows, cols);
      }
    }
  }
}

// This thread's chunks from registers into the transposed shared tile.
template <int ROWS, int COLS, int LD, int THREADS, typename T>
TSL_DEVICE void tsl_t_store(T *dst,
                            const tsl_vec16<T> (&regs)[tsl_t_map<ROWS, COLS, LD, THREADS, T>::PER_THREAD]) {
  using Map = tsl_t_map<ROWS, COLS, LD, THREADS, T>;
#pragma unroll
  for (int j = 0; j < Map::PER_THREAD; ++j) {
    const int q = j * THREADS + threadIdx.x;
    if (Map::CHUNKS % THREADS == 0 || q < Map::CHUNKS) {
      int r, c;
      Map::at(q, r, c);
#pragma unroll
      for (int v = 0; v < Map::V; ++v) dst[(c + v) * LD + r] = regs[j].v[v];
    }
  }
}

// `dma.copy src => dst.transpose();` — synchronous: the caller synchronizes after.
template <int ROWS, int COLS, int LD, int THREADS, typename T>
TSL_DEVICE void tsl_copy_g2s_t(T *dst, const T *src, int r0, int c0, int rows, int cols) {
  tsl_vec16<T> regs[tsl_t_map<ROWS, COLS, LD, THREADS, T>::PER_THREAD];
  tsl_t_load<ROWS, COLS, LD, THREADS>(regs, src, r0, c0, rows, cols);
  tsl_t_store<ROWS, COLS, LD, THREADS>(dst, regs);
}

// `dma.copy.async src => dst.transpose();` — staged through registers. A copy in flight is
// this thread's chunks in a tsl_stage_t (declared once, before the loops that use it) and the
// destination; it lands (the shared stores) at the next `dma.wait`, or before the stage is
// reused. Issuing is the 16-byte loads only, so the load latency overlaps whatever runs until
// the wait (the classic register-prefetch double buffer). Each issue also commits an (empty)
// cp.async group, so that `dma.wait N` counts transposed copies like the other async copies.
template <int ROWS, int COLS, int LD, int THREADS, typename T> struct tsl_stage_t {
  tsl_vec16<T> regs[tsl_t_map<ROWS, COLS, LD, THREADS, T>::PER_THREAD];
  T *dst = nullptr;  // set while a copy is in flight
};

// Lands the copy in flight in `stage`, if any.
template <int ROWS, int COLS, int LD, int THREADS, typename T>
TSL_DEVICE void tsl_copy_g2s_t(tsl_stage_t<ROWS, COLS, LD, THREADS, T> &stage) {
  if (stage.dst != nullptr) {
    tsl_t_store<ROWS, COLS, LD, THREADS>(stage.dst, stage.regs);
    stage.dst = nullptr;
  }
}

// Issues a copy into `stage` (landing the one in flight there first); EVEN as in tsl_t_load.
template <int ROWS, int COLS, int LD, int THREADS, bool EVEN = false, typename T>
TSL_DEVICE void tsl_copy_g2s_t(tsl_stage_t<ROWS, COLS, LD, THREADS, T> &stage, T *dst, const T *src,
                               int r0, int c0, int rows, int cols) {
  tsl_copy_g2s_t<ROWS, COLS, LD, THREADS>(stage);
  tsl_t_load<ROWS, COLS, LD, THREADS, EVEN>(stage.regs, src, r0, c0, rows, cols);
  stage.dst = dst;
  tsl_cp_async_commit();
}

// This thread's chunks of the [ROWS, COLS] tile at `base` (row pitch `pitch` elements) into
// the shared tile at `sdst`: bare 16-byte cp.async (LDGSTS) of `n` bytes each — 16, or 0 (zero
// fill, nothing read) — no per-chunk tests.
template <int ROWS, int COLS, int LD, int THREADS, typename T>
TSL_DEVICE void tsl_g2s_chunks(tsl_u32 sdst, const T *base, long long pitch, int n) {
  constexpr int V = 16 / sizeof(T);
  constexpr int CPR = COLS / V;
  constexpr int CHUNKS = ROWS * CPR;
  constexpr int PER_THREAD = (CHUNKS + THREADS - 1) / THREADS;
  if constexpr (THREADS % CPR == 0) {
    // Pass j moves this thread's chunk THREADS / CPR rows down: one pointer, one stride.
    constexpr int RSTEP = THREADS / CPR;
    const int r = threadIdx.x / CPR, c = (threadIdx.x % CPR) * V;
    const T *p = base + r * pitch + c;
    const long long step = RSTEP * pitch;
    const tsl_u32 s = sdst + (r * LD + c) * (int)sizeof(T);
#pragma unroll
    for (int j = 0; j < PER_THREAD; ++j)
      if (CHUNKS % THREADS == 0 || j * THREADS + (int)threadIdx.x < CHUNKS)
        tsl_cp_async_16(s + j * RSTEP * LD * (int)sizeof(T), p + j * step, n);
  } else {
#pragma unroll
    for (int j = 0; j < PER_THREAD; ++j) {
      const int q = j * THREADS + threadIdx.x;
      if (CHUNKS % THREADS == 0 || q < CHUNKS) {
        const int r = q / CPR, c = (q % CPR) * V;
        tsl_cp_async_16(sdst + (r * LD + c) * (int)sizeof(T), base + r * pitch + c, n);
      }
    }
  }
}

// `dma.copy.async src => dst;` (a row-major shared tile): tsl_copy_g2s with an interior fast
// path. When the whole [ROWS, COLS] tile is inside the tensor and 16-byte aligned (one test per
// tile), each thread issues its chunks as bare 16-byte cp.async (LDGSTS) from one base pointer,
// no per-chunk tests; otherwise chunk by chunk: cp.async with zero fill past the last column (or
// row), element loads when misaligned. Commits one group.
//
// EVEN: the copy sits in a loop the lowering versioned (`if (tsl_even)`): the tensor's tile grid
// divides it, so every tile lies wholly inside it or wholly past its end, 16-byte aligned. One
// predicate picks 16 or 0 bytes per chunk and the copy has no branch: ptxas can then schedule it
// into the loop body's one basic block.
template <int ROWS, int COLS, int LD, int THREADS, bool EVEN = false, typename T>
TSL_DEVICE void tsl_copy_g2s_async(T *dst, const T *src, int r0, int c0, int rows, int cols) {
  constexpr int V = 16 / sizeof(T);
  if constexpr (COLS % V != 0 || LD % V != 0) {
    tsl_copy_g2s_elems<ROWS, COLS, LD, THREADS>(dst, src, r0, c0, rows, cols);
    tsl_cp_async_commit();  // an empty group: `dma.wait N` counts it like the others
  } else {
    constexpr int CPR = COLS / V;
    constexpr int CHUNKS = ROWS * CPR;
    constexpr int PER_THREAD = (CHUNKS + THREADS - 1) / THREADS;
    const tsl_u32 sdst = tsl_smem_addr(dst);
    const bool inside = r0 + ROWS <= rows && c0 + COLS <= cols;
    if constexpr (EVEN) {
      tsl_g2s_chunks<ROWS, COLS, LD, THREADS>(sdst, inside ? src + (long long)r0 * cols + c0 : src,
                                              inside ? cols : 0, inside ? 16 : 0);
      tsl_cp_async_commit();
      return;
    }
    const bool aligned = (cols % V == 0) && (c0 % V == 0);
    if (aligned && inside) {
      tsl_g2s_chunks<ROWS, COLS, LD, THREADS>(sdst, src + (long long)r0 * cols + c0, cols, 16);
    } else {
#pragma unroll
      for (int j = 0; j < PER_THREAD; ++j) {
        const int q = j * THREADS + threadIdx.x;
        if (CHUNKS % THREADS == 0 || q < CHUNKS) {
          const int r = q / CPR, c = (q % CPR) * V;
          const int gr = r0 + r, gc = c0 + c;
          if (aligned) {
            // Bytes of the chunk inside the tensor (0 past the edge: zero fill, nothing read).
            const int n = gr < rows ? tsl_max(0, tsl_min(V, cols - gc)) * (int)sizeof(T) : 0;
            tsl_cp_async_16(sdst + (r * LD + c) * (int)sizeof(T),
                            n > 0 ? src + (long long)gr * cols + gc : src, n);
          } else {
#pragma unroll
            for (int v = 0; v < V; ++v) dst[r * LD + c + v] = tsl_ld_or_zero(src, gr, gc + v, rows, cols);
          }
        }
      }
    }
    tsl_cp_async_commit();
  }
}

// Butterfly all-reduce over the 32 lanes of a warp (SHFL.BFLY): every lane gets the sum / max.
template <typename T> TSL_DEVICE T tsl_warp_sum(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
template <typename T> TSL_DEVICE T tsl_warp_max(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const T w = __shfl_xor_sync(0xffffffffu, v, o);
    v = w > v ? w : v;
  }
  return v;
}
