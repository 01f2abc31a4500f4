// tessel lowering glue for `streamk;` (see dsl-core/src/lower/streamk.rs): the work list of a
// persistent block under stream-K and the fix-up of a tile whose k-iterations several blocks
// share. Needs prelude.cuh and lowering/common.cuh.
//
// The walk is in units of one cluster (C blocks that run the same k-iterations on their own
// row tiles; C = 1 without clusters): U = gridDim.x / C units, T = tiles / C cluster tiles.
// The first T - T % U tiles are whole tiles, unit u taking u, u + U, ... (the persistent walk);
// the k-iterations of the last T % U tiles form one range split evenly (the first total % U
// units take one more). Each unit's range holds at most one segment that does
// not start at k = 0 (its first): that segment's partial sums go to the block's workspace slot,
// each thread's registers in its own lanes, then the thread's flag (release). The segment that
// starts at k = 0 is its unit's last in time; its threads wait for the flags of the same thread
// in the later units that hold the rest of the tile (acquire), add their slots, clear the
// flags for the next launch, and the tile's epilogue runs. Every unit publishes before it
// waits and waits only on later units, so with every block resident (the persistent grid is at
// most one wave) the waits cannot deadlock.
//
// Workspace (one allocation, zeroed once): gridDim.x slots of THREADS * TSL_SK_REGS floats, then
// gridDim.x * THREADS flags.

// The most f32 accumulator registers a thread holds (a 64 x 256 WGMMA fragment).
#define TSL_SK_REGS 128

struct tsl_sk_plan {
  // units, cluster tiles, stream-K tiles among them, k-tiles per tile, blocks per cluster;
  // the stream-K k-tiles, sk_tiles * kt = q * units + r.
  int units, tiles, sk_tiles, kt, c, q, r;
  // First stream-K k-tile of unit u (u = units: the end): the first r units take q + 1.
  TSL_DEVICE int start(int u) const { return u * q + tsl_min(u, r); }
  TSL_DEVICE int dp_tiles() const { return tiles - sk_tiles; }
  TSL_DEVICE int unit() const { return (int)blockIdx.x / c; }
  // This unit's whole tiles: unit, unit + units, ... below dp_tiles().
  TSL_DEVICE int whole() const {
    return unit() < dp_tiles() ? (dp_tiles() - 1 - unit()) / units + 1 : 0;
  }
  // This unit's segments: its whole tiles, then one per tile its stream-K range touches.
  // Each is a pure function of the segment index and the launch (no state carried from one
  // segment to the next), so the compiler keeps the walk in uniform registers.
  TSL_DEVICE int segments() const {
    const int g0 = start(unit()), g1 = start(unit() + 1);
    return whole() + (g1 > g0 ? (g1 - 1) / kt - g0 / kt + 1 : 0);
  }
  // Segment s: this block's tile of it (cluster tile * c + rank) and its k-tiles [kb, ke).
  TSL_DEVICE int tile(int s) const {
    const int ct = s < whole() ? unit() + s * units : dp_tiles() + start(unit()) / kt + (s - whole());
    return ct * c + (int)blockIdx.x % c;
  }
  TSL_DEVICE int kb(int s) const { return s == whole() ? start(unit()) % kt : 0; }
  TSL_DEVICE int ke(int s) const {
    if (s < whole()) return kt;
    return tsl_min(kt, start(unit() + 1) - (start(unit()) / kt + (s - whole())) * kt);
  }
};

// The plan of this launch: `block_tiles` tiles of the block level (a multiple of c), c blocks
// per cluster, kt k-tiles per tile.
TSL_DEVICE tsl_sk_plan tsl_sk_make_plan(int block_tiles, int c, int kt) {
  tsl_sk_plan p;
  p.c = c;
  p.units = (int)gridDim.x / c;
  p.tiles = block_tiles / c;
  p.sk_tiles = p.units > 0 ? p.tiles % p.units : 0;
  p.kt = kt;
  const long long total = (long long)p.sk_tiles * kt;
  p.q = p.units > 0 ? (int)(total / p.units) : 0;
  p.r = p.units > 0 ? (int)(total % p.units) : 0;
  return p;
}

// st.global.release.gpu / ld.global.acquire.gpu on a thread's flag.
TSL_DEVICE void tsl_sk_flag_release(int *f) {
  asm volatile("st.global.release.gpu.b32 [%0], %1;" ::"l"(f), "r"(1) : "memory");
}
TSL_DEVICE int tsl_sk_flag_acquire(const int *f) {
  int v;
  asm volatile("ld.global.acquire.gpu.b32 %0, [%1];" : "=r"(v) : "l"(f) : "memory");
  return v;
}

// The stream-K segment that does not start the tile: this thread's partial sums to the block's
// slot (through L2: another SM reads them), then its flag.
template <int THREADS, int R> TSL_DEVICE void tsl_sk_publish(float (&acc)[R], unsigned char *ws) {
  static_assert(R % 4 == 0 && R <= TSL_SK_REGS, "streamk: f32 fragments of at most 128 registers");
  tsl_pin(acc);
  float *slot = reinterpret_cast<float *>(ws) + (long long)blockIdx.x * (THREADS * TSL_SK_REGS);
#pragma unroll
  for (int i = 0; i < R / 4; ++i)
    asm volatile("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(
                     slot + 4 * (i * THREADS + (int)threadIdx.x)),
                 "f"(acc[4 * i]), "f"(acc[4 * i + 1]), "f"(acc[4 * i + 2]), "f"(acc[4 * i + 3])
                 : "memory");
  int *flags = reinterpret_cast<int *>(reinterpret_cast<float *>(ws) +
                                       (long long)gridDim.x * (THREADS * TSL_SK_REGS));
  tsl_sk_flag_release(&flags[blockIdx.x * THREADS + threadIdx.x]);
}

// The segment that starts tile `tile` (this block's tile index) while later units hold the
// rest: wait for each one's flag, add its slot into the registers, clear the flag.
template <int THREADS, int R>
TSL_DEVICE void tsl_sk_gather(float (&acc)[R], unsigned char *ws, const tsl_sk_plan &p, int tile) {
  static_assert(R % 4 == 0 && R <= TSL_SK_REGS, "streamk: f32 fragments of at most 128 registers");
  tsl_pin(acc);
  const int unit = p.unit();
  const int rank = (int)blockIdx.x % p.c;
  const int tile_end = (tile / p.c - p.dp_tiles() + 1) * p.kt;
  const float *slots = reinterpret_cast<const float *>(ws);
  int *flags = reinterpret_cast<int *>(reinterpret_cast<float *>(ws) +
                                       (long long)gridDim.x * (THREADS * TSL_SK_REGS));
  for (int v = unit + 1; v < p.units && p.start(v) < tile_end; ++v) {
    if (p.start(v + 1) == p.start(v)) continue;  // a unit without stream-K work
    const int b = v * p.c + rank;
    int *f = &flags[b * THREADS + threadIdx.x];
    while (tsl_sk_flag_acquire(f) == 0) {
    }
    const float *slot = slots + (long long)b * (THREADS * TSL_SK_REGS);
#pragma unroll
    for (int i = 0; i < R / 4; ++i) {
      float a0, a1, a2, a3;
      asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];"
                   : "=f"(a0), "=f"(a1), "=f"(a2), "=f"(a3)
                   : "l"(slot + 4 * (i * THREADS + (int)threadIdx.x))
                   : "memory");
      acc[4 * i] += a0;
      acc[4 * i + 1] += a1;
      acc[4 * i + 2] += a2;
      acc[4 * i + 3] += a3;
    }
    *f = 0;  // the next launch starts from zero
  }
  tsl_pin(acc);
}
