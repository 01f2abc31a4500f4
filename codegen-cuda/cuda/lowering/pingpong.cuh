// tessel lowering glue, the ping-pong schedule (`pingpong;`): the consumer warpgroups of a
// persistent kernel take turns on whole tiles. Needs prelude.cuh and sm90_hopper.cuh.
#pragma once

// bar.arrive id, nthreads: arrive on a named barrier without waiting (the other side syncs).
TSL_DEVICE void tsl_named_barrier_arrive(int id, int nthreads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

// The main-loop turn of consumer `c` of `C`: tiles go to the consumers in turn, and a consumer
// starts its tile's main loop once the consumer before it (c - 1 mod C) has finished the main
// loop of the tile before — so one warpgroup's WGMMAs run while the other stores its tile.
// Named barrier 9 + c pairs the 128 threads that pass the turn with the 128 that take it.
template <int C> TSL_DEVICE void tsl_pingpong_wait_turn(int c, bool after_another_tile) {
  static_assert(C >= 1 && C <= 7, "pingpong: 1 to 7 consumer warpgroups (named barriers 9..15)");
  if constexpr (C > 1) {
    if (after_another_tile) tsl_named_barrier_sync(9 + c, 256);
  }
}
// Hands the turn to the next consumer, if the block has a next tile (the one it waits for).
template <int C> TSL_DEVICE void tsl_pingpong_pass_turn(int c, bool another_tile_follows) {
  if constexpr (C > 1) {
    if (another_tile_follows) tsl_named_barrier_arrive(9 + (c + 1) % C, 256);
  }
}

// The ring's parity bits (one per barrier of an event the consumers wait on) travel with the
// turn: the consumer that passes it leaves its bits in shared memory, the one that takes it
// continues from them, so each consumer waits on the phases the tiles before it left — whatever
// the other consumers' tiles waited on. bar.arrive / bar.sync order the store before the load.
template <int C> TSL_DEVICE void tsl_pingpong_hand_phase(unsigned phase, unsigned &shared, bool another_tile_follows) {
  if constexpr (C > 1) {
    if (another_tile_follows && threadIdx.x % 128 == 0) shared = phase;
  }
}
template <int C> TSL_DEVICE void tsl_pingpong_take_phase(unsigned &phase, const unsigned &shared, bool after_another_tile) {
  if constexpr (C > 1) {
    if (after_another_tile) phase = shared;
  }
}
