//! A program using tessel from its own crate: allocate, load, launch, read back.
use tessel::prelude::*;

gemm_kernel! {
    tunable TILE_M in [8, 16, 32] = 16;
    tunable TILE_N in [8, 16, 32] = 16;
    __co__ void matmul(global f32 [M, K] a, global f32 [N, K] b, global f32 [M, N] c) {
      parallel {bm, bn} by [cdiv(M, TILE_M), cdiv(N, TILE_N)] : block,
               {tm, tn} by [TILE_M, TILE_N] : thread {
        f32 acc = 0.0f;
        foreach {k} in [K]
          acc += a.at(bm # tm, k) * b.at(bn # tn, k);
        c.at(bm # tm, bn # tn) = acc;
      }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Ok(dev) = Device::open(0).inspect_err(|e| eprintln!("needs an NVIDIA GPU: {e}")) else {
        std::process::exit(2);
    };
    let stream = dev.stream(); // a cudarc `Arc<CudaStream>`; any cudarc stream works
    let (m, n, k) = (300, 200, 64);
    let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32).collect();
    let b: Vec<f32> = (0..n * k).map(|i| (i % 5) as f32).collect();
    let (a_dev, b_dev) = (stream.clone_htod(&a)?, stream.clone_htod(&b)?);
    let mut c_dev = stream.alloc_zeros::<f32>(m * n)?;
    let kernel = matmul::load(stream, &matmul::config())?; // check, compile, load: once
    kernel.launch(
        TensorRef::new(&a_dev, &[m, k])?, // cudarc buffers, shapes beside them
        TensorRef::new(&b_dev, &[n, k])?,
        TensorMut::new(&mut c_dev, &[m, n])?,
    )?;
    let c = stream.clone_dtoh(&c_dev)?; // waits for the kernel
    let dot = |i: usize, j: usize| (0..k).map(|p| a[i * k + p] * b[j * k + p]).sum::<f32>();
    let wrong = (0..m * n).filter(|&x| c[x] != dot(x / n, x % n)).count();
    println!("{m}x{n}x{k} on {}: {wrong} wrong elements", dev.info().name);
    std::process::exit(if wrong == 0 { 0 } else { 1 });
}
