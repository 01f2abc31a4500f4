//! The host side of a launch on a loaded handle allocates nothing: binding the tensors'
//! shapes, checking them and evaluating the grid (`LaunchTemplate::bind`) is counted here with
//! a counting allocator, on the CPU. (The driver call itself is measured on a GPU by
//! `examples/launch_overhead.rs`, which counts allocations the same way.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use tessel::runtime::bind::LaunchTemplate;
use tessel::runtime::dsl::Prepared;
use tessel::runtime::dtype::DType;

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

tessel::gemm_kernel!(file = "kernels/v4_tuned.co");

#[test]
fn binding_a_launch_allocates_nothing() {
    let def = &matmul::KERNEL;
    let cfg = def.default_config();
    let p = Prepared::get(def, Default::default()).unwrap();
    let info = def.check(&cfg, None).unwrap();
    let t = LaunchTemplate::new(&p, &cfg, &info.constants, 132).unwrap();
    let (m, n, k) = (8192usize, 8192usize, 8192usize);
    let (a, b, c) = ([m, k], [n, k], [m, n]);
    let shapes: [&[usize]; 3] = [&a, &b, &c];
    let dtypes = [DType::F16; 3];
    let first = t.bind(&shapes, Some(&dtypes)).unwrap();
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for _ in 0..1000 {
        let b = t.bind(&shapes, Some(&dtypes)).unwrap();
        assert_eq!(b, first);
    }
    assert_eq!(ALLOCATIONS.load(Ordering::Relaxed) - before, 0);
    // A persistent grid: one block per SM (or fewer tiles).
    assert!(first.launch.grid.0 <= 132, "{:?}", first.launch);
}
