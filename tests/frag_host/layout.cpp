// Host model of the accumulator element numbering of codegen-cuda/cuda/lowering/frag_elem.cuh
// (tests/frag_elem_host.rs includes the file as TSL_FRAG_ELEM_HOST). Every thread of a warp
// (mma.sync) or warpgroup (WGMMA) runs in turn; each element's (row, column) must be the one
// the PTX ISA's accumulator fragment tables give for that register, written out here on their
// own terms, and the threads' elements together must cover the tile exactly once. The f16
// element proxy must read and write the right half of a packed register.
#include <cstdio>
#include <cstring>
#include <vector>
#define TSL_DEVICE inline
typedef unsigned int tsl_u32;
typedef unsigned short tsl_u16;
struct tsl_f16 { tsl_u16 bits; };
struct tsl_f16x2 { tsl_u32 bits; };
struct { unsigned x; } threadIdx;
inline float tsl_f16_to_f32(tsl_f16 x) { _Float16 h; memcpy(&h, &x.bits, 2); return (float)h; }
inline tsl_u32 tsl_pack_f16x2(float lo, float hi) {
  _Float16 a = (_Float16)lo, b = (_Float16)hi; tsl_u16 x, y; memcpy(&x, &a, 2); memcpy(&y, &b, 2);
  return x | ((tsl_u32)y << 16);
}
inline tsl_f16 tsl_f16x2_lo(tsl_f16x2 x) { return {(tsl_u16)(x.bits & 0xffff)}; }
inline tsl_f16 tsl_f16x2_hi(tsl_f16x2 x) { return {(tsl_u16)(x.bits >> 16)}; }
#include <cmath>
inline float __int_as_float(int x) { float f; memcpy(&f, &x, 4); return f; }
// The quad shuffles of the row reductions: this model runs one thread at a time, so a shuffle
// returns the thread's own value (a sum's two shuffle steps then make it 4 × the thread's
// partial sum, a maximum stays the thread's) and the test combines the quad's four partial
// results itself.
inline float __shfl_xor_sync(unsigned, float x, int) { return x; }
#include TSL_FRAG_ELEM_HOST

static int failures = 0;
static void expect(bool ok, const char *what, int a, int b, int c) {
  if (!ok && failures++ < 20) std::printf("FAIL %s (%d, %d, %d)\n", what, a, b, c);
}

// PTX ISA, "mma.m16n8k*: matrix fragment for accumulator C/D" (f32 and s32: c0..c3; f16: two
// .f16x2 registers holding c0,c1 and c2,c3): groupID = laneid >> 2, threadID_in_group =
// laneid % 4; row = groupID for c0, c1 and groupID + 8 for c2, c3; col = threadID_in_group * 2
// + (i & 1). The lowering lays FM x FN such tiles out row-major, four values each; an 8-row
// tile (m8n8k16, or f16 m16n8k8 whose rows 8-15 are zero) keeps values c0, c1.
template <int FM, int FN, int MB> static void warp_case() {
  std::vector<int> seen(FM * MB * FN * 8, 0);
  std::vector<int> rows(FM * MB, 0);
  for (int lane = 0; lane < 32; ++lane) {
    threadIdx.x = lane;
    // Each row is held by exactly the four lanes of its quad (one slot each).
    for (int s = 0; s < FM * (MB / 8); ++s) rows[tsl_frag_warp_slot_row<MB>(s)]++;
  }
  for (int x : rows) expect(x == 4, "warp rows held by a quad", FM, FN, MB);
  for (int lane = 0; lane < 32; ++lane) {
    threadIdx.x = 64 + lane;  // a later warp of the block: only the lane matters
    for (int e = 0; e < FM * FN * 4; ++e) {
      const int tile = e / 4, c = e % 4, tm = tile / FN, tn = tile % FN;
      if (MB == 8 && c >= 2) continue;
      const int row = tm * MB + (lane >> 2) + (c >= 2 ? 8 : 0);
      const int col = tn * 8 + (lane % 4) * 2 + (c & 1);
      const int r = tsl_frag_warp_row<FN, MB>(e), k = tsl_frag_warp_col<FN>(e);
      expect(r == row && k == col, "warp element", lane, e, MB);
      // The element's row slot holds that row.
      expect(tsl_frag_warp_slot_row<MB>(tsl_frag_warp_slot<FN, MB>(e)) == row, "warp slot", lane, e, MB);
      if (r >= 0 && r < FM * MB && k >= 0 && k < FN * 8) seen[r * FN * 8 + k]++;
    }
  }
  for (int x : seen) expect(x == 1, "warp tile covered once", FM, FN, MB);
  std::printf("warp %dx%d tiles of m%dn8: ok\n", FM, FN, MB);
}

// PTX ISA, "wgmma.mma_async: matrix D fragment" (m64nNk*): the warpgroup's four warps own rows
// 16w .. 16w + 15; in a warp, row = groupID (+ 8 for d[i] with i % 4 >= 2), col = (i / 4) * 8 +
// threadID_in_group * 2 + (i & 1), for d0 .. d(N/2 - 1).
template <int N> static void wgmma_case() {
  std::vector<int> seen(64 * N, 0);
  std::vector<int> rows(64, 0);
  for (int t = 0; t < 128; ++t) {
    threadIdx.x = t;
    for (int s = 0; s < 2; ++s) rows[tsl_frag_wgmma_slot_row(s)]++;
  }
  for (int x : rows) expect(x == 4, "wgmma rows held by a quad", N, 0, 0);
  for (int t = 0; t < 128; ++t) {
    threadIdx.x = 128 + t;  // the second warpgroup of the block
    const int w = t / 32, lane = t % 32;
    for (int i = 0; i < N / 2; ++i) {
      const int row = 16 * w + (lane >> 2) + (i % 4 >= 2 ? 8 : 0);
      const int col = (i / 4) * 8 + (lane % 4) * 2 + (i & 1);
      const int r = tsl_frag_wgmma_row(i), k = tsl_frag_wgmma_col(i);
      expect(r == row && k == col, "wgmma element", t, i, N);
      expect(tsl_frag_wgmma_slot_row(tsl_frag_wgmma_slot(i)) == row, "wgmma slot", t, i, N);
      if (r >= 0 && r < 64 && k >= 0 && k < N) seen[r * N + k]++;
    }
  }
  for (int x : seen) expect(x == 1, "wgmma tile covered once", N, 0, 0);
  std::printf("wgmma m64n%d: ok\n", N);
}

// Row reductions: each lane's partial sum and maximum over its elements of a row, combined over
// the row's quad, equal the row's sum and maximum of the whole tile.
template <int FM, int FN, int MB> static void warp_reduce_case() {
  const int M = FM * MB, N = FN * 8, S = FM * (MB / 8);
  auto value = [](int r, int c) { return (float)((r * 7 + c * 13) % 23) - 11.0f; };
  std::vector<float> sum(M * 4, 0.0f), mx(M * 4, 0.0f);
  std::vector<int> quad_seen(M, 0);
  for (int lane = 0; lane < 32; ++lane) {
    threadIdx.x = lane;
    float acc[FM * FN * 4];
    for (int e = 0; e < FM * FN * 4; ++e) {
      const bool held = !(MB == 8 && (e & 2));
      acc[e] = held ? value(tsl_frag_warp_row<FN, MB>(e), tsl_frag_warp_col<FN>(e)) : 1e9f;
    }
    float vs[S], vm[S];
    tsl_frag_warp_reduce<0, FM, FN, MB>(vs, acc);
    tsl_frag_warp_reduce<1, FM, FN, MB>(vm, acc);
    for (int s = 0; s < S; ++s) {
      const int r = tsl_frag_warp_slot_row<MB>(s);
      sum[r * 4 + lane % 4] = vs[s];
      mx[r * 4 + lane % 4] = vm[s];
      quad_seen[r]++;
    }
  }
  for (int r = 0; r < M; ++r) {
    float ws = 0.0f, wm = -1e30f;
    for (int c = 0; c < N; ++c) {
      ws += value(r, c);
      wm = value(r, c) > wm ? value(r, c) : wm;
    }
    float gs = 0.0f, gm = -1e30f;
    for (int q = 0; q < 4; ++q) {
      gs += sum[r * 4 + q];
      gm = mx[r * 4 + q] > gm ? mx[r * 4 + q] : gm;
    }
    expect(quad_seen[r] == 4 && gs == 4.0f * ws && gm == wm, "warp row reduction", r, FN, MB);
  }
  std::printf("warp row reductions %dx%d tiles of m%dn8: ok\n", FM, FN, MB);
}

template <int N> static void wgmma_reduce_case() {
  auto value = [](int r, int c) { return (float)((r * 5 + c * 11) % 19) - 9.0f; };
  std::vector<float> sum(64 * 4, 0.0f);
  for (int t = 0; t < 128; ++t) {
    threadIdx.x = t;
    float acc[N / 2];
    for (int e = 0; e < N / 2; ++e) acc[e] = value(tsl_frag_wgmma_row(e), tsl_frag_wgmma_col(e));
    float v[2];
    tsl_frag_wgmma_reduce<0, N>(v, acc);
    for (int s = 0; s < 2; ++s) sum[tsl_frag_wgmma_slot_row(s) * 4 + t % 4] = v[s];
  }
  for (int r = 0; r < 64; ++r) {
    float want = 0.0f, got = 0.0f;
    for (int c = 0; c < N; ++c) want += value(r, c);
    for (int q = 0; q < 4; ++q) got += sum[r * 4 + q];
    expect(got == 4.0f * want, "wgmma row reduction", r, N, 0);
  }
  std::printf("wgmma row reductions m64n%d: ok\n", N);
}

static void half_proxy() {
  tsl_u32 regs[2] = {tsl_pack_f16x2(1.0f, 2.0f), tsl_pack_f16x2(3.0f, 4.0f)};
  for (int e = 0; e < 4; ++e) expect((float)tsl_frag_f16(regs, e) == (float)(e + 1), "f16 read", e, 0, 0);
  tsl_frag_f16(regs, 1) = 5.0f;
  tsl_frag_f16(regs, 2) = (float)tsl_frag_f16(regs, 2) * 2.0f;
  const float want[4] = {1.0f, 5.0f, 6.0f, 4.0f};
  for (int e = 0; e < 4; ++e) expect((float)tsl_frag_f16(regs, e) == want[e], "f16 write", e, 0, 0);
  std::printf("f16 halves: ok\n");
}

int main() {
  warp_case<1, 1, 16>();
  warp_case<2, 4, 16>();
  warp_case<4, 8, 16>();
  warp_case<1, 2, 8>();
  warp_case<3, 1, 8>();
  wgmma_case<8>();
  wgmma_case<64>();
  wgmma_case<256>();
  warp_reduce_case<2, 4, 16>();
  warp_reduce_case<1, 8, 8>();
  wgmma_reduce_case<64>();
  half_proxy();
  std::printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
