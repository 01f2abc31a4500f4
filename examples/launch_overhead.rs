//! Host time of one launch on a loaded handle: median over many launches, next to the bare
//! driver launch of the same kernel and to what a launch cost when every call checked,
//! compiled (cached) and loaded the kernel again. Also counts heap allocations per launch.
//!
//! Run on a GPU: `cargo run --release --example launch_overhead -- [--launches N]`
//!
//! A small problem (64 × 64 × 64) keeps the GPU ahead of the host; launches are timed one by
//! one in batches of 256 with a synchronization between batches, so the launch queue never
//! fills and blocks a launch.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use tessel::prelude::*;
use tessel::runtime::dsl::{Instance, Prepared, module_cache};

/// Counts allocations, to show that a launch allocates nothing.
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

gemm_kernel! {
    tunable TILE_M in [8, 16, 32] = 16;
    tunable TILE_N in [8, 16, 32] = 16;
    __co__ void sgemm_nt(global f32 [M, K] lhs, global f32 [N, K] rhs, global f32 [M, N] out) {
      parallel {block_m, block_n} by [cdiv(M, TILE_M), cdiv(N, TILE_N)] : block,
               {thr_m, thr_n} by [TILE_M, TILE_N] : thread {
        f32 acc = 0.0f;
        foreach {iv_k} in [K]
          acc += lhs.at(block_m # thr_m, iv_k) * rhs.at(block_n # thr_n, iv_k);
        out.at(block_m # thr_m, block_n # thr_n) = acc;
      }
    }
}

gemm_kernel!(file = "kernels/v4_tuned.co");

/// Per-launch host times (µs) of `launches` calls of `f`, in batches with a synchronization
/// between them, and the allocations made inside the timed calls.
fn measure(
    stream: &CudaStream,
    launches: usize,
    mut f: impl FnMut() -> Result<(), Box<dyn std::error::Error>>,
) -> Result<(Vec<f64>, usize), Box<dyn std::error::Error>> {
    let mut times = Vec::with_capacity(launches);
    let mut allocations = 0;
    while times.len() < launches {
        for _ in 0..256.min(launches - times.len()) {
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            let t0 = Instant::now();
            f()?;
            let dt = t0.elapsed();
            allocations += ALLOCATIONS.load(Ordering::Relaxed) - before;
            times.push(dt.as_secs_f64() * 1e6);
        }
        stream.synchronize()?;
    }
    times.sort_by(f64::total_cmp);
    Ok((times, allocations))
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Host time per launch on a loaded handle, against the driver's floor and a per-call load.
#[derive(clap::Parser, Debug)]
#[command(
    version,
    about = "Host time per launch: a loaded handle, autotuned dispatch, the driver floor, and check + compile + load per call",
    after_help = "Exit codes: 0 ok, 2 usage error, 3 no GPU / CUDA driver, 4 other error."
)]
struct Cli {
    /// Timed launches per path
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(100..))]
    launches: u64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = <Cli as clap::Parser>::parse();
    let launches = cli.launches as usize;
    let dev = match Device::open(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("launch_overhead needs a CUDA GPU: {e}");
            std::process::exit(3);
        }
    };
    let stream = dev.stream().clone();
    let (m, n, k) = (64, 64, 64);
    let lhs = DeviceTensor::<f32>::random(&dev, &[m, k], 1)?;
    let rhs = DeviceTensor::<f32>::random(&dev, &[n, k], 2)?;
    let mut out = DeviceTensor::<f32>::poisoned(&dev, &[m, n])?;

    let t0 = Instant::now();
    let handle = sgemm_nt::load(&stream, &sgemm_nt::config())?;
    let load_ms = t0.elapsed().as_secs_f64() * 1e3;
    // Warm-up (first launch of the shape runs the problem-size checks once).
    handle.launch(lhs.view(), rhs.view(), out.view_mut())?;
    stream.synchronize()?;

    let (handle_t, handle_allocs) = measure(&stream, launches, || {
        Ok(handle.launch(lhs.view(), rhs.view(), out.view_mut())?)
    })?;

    let tuned = sgemm_nt::autotuned(&stream)?;
    tuned.launch(lhs.view(), rhs.view(), out.view_mut())?;
    let (tuned_t, tuned_allocs) = measure(&stream, launches, || {
        Ok(tuned.launch(lhs.view(), rhs.view(), out.view_mut())?)
    })?;

    // The driver floor: the same function, a prepared argument list, cudarc's launch.
    let prepared = Prepared::get(&sgemm_nt::KERNEL, Default::default())?;
    let problem = prepared.bind(&[lhs.as_arg(), rhs.as_arg(), out.as_arg()])?;
    let inst = Instance::new(
        &dev,
        module_cache(),
        prepared.clone(),
        &sgemm_nt::config(),
        &problem,
    )?;
    let raw_args = inst.args(&[lhs.as_arg(), rhs.as_arg(), out.as_arg()])?;
    let (raw_t, raw_allocs) = measure(&stream, launches, || Ok(inst.launch(&raw_args)?))?;

    // Check + compile (cached) + load on every call, for a few calls.
    let (reload_t, _) = measure(&stream, 200.min(launches), || {
        let p = Prepared::get(&sgemm_nt::KERNEL, Default::default())?;
        let tensors = [lhs.as_arg(), rhs.as_arg(), out.as_arg()];
        let pb = p.bind(&tensors)?;
        let i = Instance::new(&dev, module_cache(), p, &sgemm_nt::config(), &pb)?;
        Ok(i.launch(&i.args(&tensors)?)?)
    })?;

    println!(
        "GPU: {} ({} launches of {m}x{n}x{k} f32; load took {load_ms:.1} ms)",
        dev.info().name,
        launches
    );
    println!(
        "| path | median µs | p10 µs | p90 µs | allocations / launch |\n|---|---|---|---|---|"
    );
    let row = |name: &str, t: &[f64], allocs: Option<usize>| {
        let a = allocs.map_or("-".to_string(), |a| {
            format!("{:.2}", a as f64 / t.len() as f64)
        });
        println!(
            "| {name} | {:.2} | {:.2} | {:.2} | {a} |",
            pct(t, 0.5),
            pct(t, 0.1),
            pct(t, 0.9)
        );
    };
    row(
        "`Handle::launch` (loaded handle)",
        &handle_t,
        Some(handle_allocs),
    );
    row("`Autotuned::launch`", &tuned_t, Some(tuned_allocs));
    row(
        "`Kernel::launch` (driver floor, prepared args)",
        &raw_t,
        Some(raw_allocs),
    );
    row("check + compile (cached) + load per call", &reload_t, None);

    // The Hopper path: two tensor maps per launch (encoded once, reused while the tensors stay).
    if dev.info().compute_capability == (9, 0) {
        let hopper = || -> Result<(Vec<f64>, usize), Box<dyn std::error::Error>> {
            let s = 1024;
            let lhs = DeviceTensor::<f16>::random(&dev, &[s, s], 1)?;
            let rhs = DeviceTensor::<f16>::random(&dev, &[s, s], 2)?;
            let mut out = DeviceTensor::<f16>::poisoned(&dev, &[s, s])?;
            let v4 = matmul::load(&stream, &matmul::config())?;
            v4.launch(lhs.view(), rhs.view(), out.view_mut())?;
            stream.synchronize()?;
            measure(&stream, launches.min(5000), || {
                Ok(v4.launch(lhs.view(), rhs.view(), out.view_mut())?)
            })
        };
        let name = "`matmul::Handle::launch` (v4_tuned, TMA, 1024³ f16)";
        match hopper() {
            Ok((t, allocs)) => row(name, &t, Some(allocs)),
            Err(e) => println!("| {name} | failed: {e} | | | |"),
        }
    }
    Ok(())
}
