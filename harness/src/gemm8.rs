//! The shared `main` of the 8-bit GEMM examples (`v4_fp8`, `v4_s8`, `gemm_s8`): write the instantiated
//! `.cu`, and on a GPU verify the kernel over the full output against cuBLASLt's 8-bit GEMM
//! (`cublasLtMatmul`, fp8 with per-tensor scale pointers, s8 with s32 compute) and time both in
//! the same process. The reference is the fastest of the heuristic's top algorithms (fp8: with
//! and without `FAST_ACCUM`); verification uses the promoted (`FAST_ACCUM` off) result.
//! `--regimes` then times both in the burst and the sustained regime (see
//! `tessel_runtime::regime`), with the SM clock and power of each.

use dsl_core::check::Config;
use dsl_core::def::{KernelDef, Variant};
use dsl_core::ir;

use tessel_runtime::clocks::Clocks;
use tessel_runtime::cublas_ref::plan_nt;
use tessel_runtime::cublaslt_ref::{Candidate, LtRef, Scales};
use tessel_runtime::device::Device;
use tessel_runtime::dsl::{Instance, Prepared, module_cache};
use tessel_runtime::dtype::{DType, E4M3, E5M2, Element, F8E4M3, F8E5M2, host_random_s8};
use tessel_runtime::regime::{self, BurstConfig, RegimeTiming, SustainedConfig, Work};
use tessel_runtime::tensor::DeviceTensor;
use tessel_runtime::timing::{Timing, TimingConfig, gemm_flops, time_gpu};
use tessel_runtime::verify::{gemm_tolerance, verify};

use crate::exit;
use crate::sweep::no_gpu;

/// The 8-bit GEMM examples' flags.
#[derive(clap::Parser, Debug)]
#[command(
    version,
    about = "Runs a tessel 8-bit GEMM kernel: writes its .cu, verifies it against cuBLASLt's 8-bit GEMM over the full output and times both",
    after_help = "Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 no GPU / CUDA driver, 4 other error."
)]
pub struct Gemm8Cli {
    /// Rows of lhs and out
    #[arg(long, default_value_t = 8192, value_parser = crate::flags::positive)]
    pub m: usize,
    /// Rows of rhs, columns of out [default: as --m]
    #[arg(long, value_parser = crate::flags::positive)]
    pub n: Option<usize>,
    /// Reduction dimension [default: as --m]
    #[arg(long, value_parser = crate::flags::positive)]
    pub k: Option<usize>,
    /// fp8 kernels: the operand format
    #[arg(long, value_parser = ["f8_e4m3", "f8_e5m2"])]
    pub dtype: Option<String>,
    /// Set a tunable: NAME=VALUE (repeatable)
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = crate::sweep::parse_set)]
    pub sets: Vec<(String, i64)>,
    /// Timed runs per round (at least 20)
    #[arg(long, default_value_t = 20)]
    pub runs: usize,
    /// cuBLASLt algorithms proposed by the heuristic to time (per FAST_ACCUM setting)
    #[arg(long, default_value_t = 8, value_parser = crate::flags::positive)]
    pub algos: usize,
    /// Also time tessel and the chosen cuBLASLt algorithm in the burst regime (idle, L2 flush,
    /// boost-clock samples only) and the sustained regime (after a thermal soak)
    #[arg(long)]
    pub regimes: bool,
    /// Seconds of back-to-back running before the sustained rounds (with --regimes)
    #[arg(long, default_value_t = SustainedConfig::default().soak_s)]
    pub soak: f64,
}

/// Runs an 8-bit GEMM example; returns the process exit code (see [`crate::exit`]).
pub fn gemm8_main(def: &'static KernelDef, example: &str, args: &[String]) -> i32 {
    let cli = match exit::parse::<Gemm8Cli>(example, args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    exit::finish(example, run(def, example, &cli))
}

fn run(def: &'static KernelDef, example: &str, o: &Gemm8Cli) -> Result<bool, exit::Error> {
    let variant = Variant {
        input: o.dtype.as_deref().and_then(ir::DType::from_name),
        acc: None,
    };
    let declared = Prepared::get(def, Variant::default()).map_err(|e| e.to_string())?;
    let declared_input = declared.module.kernel.params[0].dtype;
    if o.dtype.is_some() && !declared_input.is_f8() {
        return Err(exit::Error::Usage(format!(
            "--dtype picks the fp8 format of an fp8 kernel; `{}` reads {declared_input}",
            def.name
        )));
    }
    let prepared = if variant.is_default() {
        declared
    } else {
        Prepared::get(def, variant).map_err(|e| e.to_string())?
    };
    let input = prepared.module.kernel.params[0].dtype;
    let cfg = crate::sweep::config_with(def, &o.sets).map_err(exit::Error::Usage)?;
    let vname = crate::gemm::variant_name(&prepared);
    let dir = crate::out::example_dir(example);
    let path = dir.join(format!("{}_{vname}.cu", def.name));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    std::fs::write(&path, prepared.instantiated_cuda(&cfg))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let config: Vec<String> = cfg.values.iter().map(|(k, v)| format!("{k}={v}")).collect();
    println!(
        "kernel   {} ({vname}), config {}",
        def.name,
        config.join(" ")
    );
    println!("cuda     {}", path.display());
    let dev = match Device::open(0) {
        Ok(d) => d,
        Err(e) => return Err(exit::Error::NoGpu(no_gpu(&prepared, &cfg, &e.to_string()))),
    };
    let output = prepared.module.kernel.params[2].dtype;
    let dims = (o.m, o.n.unwrap_or(o.m), o.k.unwrap_or(o.m));
    let r = match (input, output) {
        (ir::DType::F8E4M3, ir::DType::F16) => {
            measure::<F8E4M3, half::f16>(&dev, &prepared, &cfg, dims, o)?
        }
        (ir::DType::F8E5M2, ir::DType::F16) => {
            measure::<F8E5M2, half::f16>(&dev, &prepared, &cfg, dims, o)?
        }
        (ir::DType::S8, ir::DType::I32) => measure::<i8, i32>(&dev, &prepared, &cfg, dims, o)?,
        (i, out) => {
            return Err(exit::Error::Usage(format!(
                "the 8-bit GEMM examples run f8 → f16 and s8 → s32 kernels, not {i} → {out}"
            )));
        }
    };
    let (m, n, k) = dims;
    let (a, b) = (
        r.tessel.tflops.unwrap_or(0.0),
        r.cublaslt.tflops.unwrap_or(0.0),
    );
    println!("verify   {}", r.verification);
    println!(
        "host     f64 spot check of {} outputs: max relative error {:.2e}",
        r.spot.0, r.spot.1
    );
    println!("cuBLASLt {}", r.algo);
    println!(
        "{}",
        crate::sgemm::timing_table(&r.tessel, &r.cublaslt, false).replace("cuBLAS", "cuBLASLt")
    );
    let ok = r.verification.passed();
    println!(
        "result   {} {m}x{n}x{k} {vname} {a:.1} TFLOP/s = {:.3}x cuBLASLt ({b:.1}) verify={}",
        def.name,
        a / b.max(1e-9),
        if ok { "ok" } else { "FAIL" }
    );
    for (name, timings) in &r.regimes {
        let tf = |x: &RegimeTiming| x.tflops.unwrap_or(0.0);
        println!("{name:9} tessel    {}", timings[0]);
        println!("{name:9} cuBLASLt  {}", timings[1]);
        println!(
            "{name:9} ratio {:.3} (tessel {:.1} vs cuBLASLt {:.1} TFLOP/s)",
            tf(&timings[0]) / tf(&timings[1]).max(1e-9),
            tf(&timings[0]),
            tf(&timings[1])
        );
    }
    Ok(ok)
}

/// One 8-bit GEMM measured.
struct Measured {
    verification: tessel_runtime::verify::Verification,
    spot: (usize, f64),
    tessel: Timing,
    cublaslt: Timing,
    /// Which cuBLASLt algorithm (and FAST_ACCUM setting) was fastest.
    algo: String,
    /// With `--regimes`: ("burst" | "sustained", [tessel, cuBLASLt]).
    regimes: Vec<(&'static str, Vec<RegimeTiming>)>,
}

/// Random inputs of the element type: fp8 codes of values uniform in [-1, 1], s8 in
/// [-127, 127]; none zero.
fn host_input<I: Element>(len: usize, seed: u64) -> Vec<I> {
    let codes: Vec<u8> = match I::DTYPE {
        DType::F8E4M3 => E4M3.host_random(len, seed),
        DType::F8E5M2 => E5M2.host_random(len, seed),
        _ => host_random_s8(len, seed)
            .into_iter()
            .map(|v| v as u8)
            .collect(),
    };
    codes
        .into_iter()
        .map(|c| I::from_f64(bits_value::<I>(c)))
        .collect()
}

/// The value of the byte `c` read as an element of `I` (an 8-bit type).
fn bits_value<I: Element>(c: u8) -> f64 {
    match I::DTYPE {
        DType::F8E4M3 => E4M3.decode(c),
        DType::F8E5M2 => E5M2.decode(c),
        _ => f64::from(c as i8),
    }
}

/// Timing rounds per side.
const ROUNDS: usize = 3;

fn measure<I: Element, O: Element>(
    dev: &Device,
    p: &std::sync::Arc<Prepared>,
    cfg: &Config,
    (m, n, k): (usize, usize, usize),
    o: &Gemm8Cli,
) -> Result<Measured, String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    let info = dev.info();
    println!(
        "device   {} ({} SMs, {}), problem {m}x{n}x{k}",
        info.name, info.sm_count, info.arch
    );
    let (ha, hb) = (host_input::<I>(m * k, 1), host_input::<I>(n * k, 2));
    let lhs = DeviceTensor::<I>::from_host(dev, &[m, k], &ha).map_err(|x| e(&x))?;
    let rhs = DeviceTensor::<I>::from_host(dev, &[n, k], &hb).map_err(|x| e(&x))?;
    let out = DeviceTensor::<O>::poisoned(dev, &[m, n]).map_err(|x| e(&x))?;
    let tensors = [lhs.as_arg(), rhs.as_arg(), out.as_arg()];
    let problem = p.bind(&tensors).map_err(|x| e(&x))?;
    let inst = Instance::new(dev, module_cache(), p.clone(), cfg, &problem).map_err(|x| e(&x))?;
    let kargs = inst.args(&tensors).map_err(|x| e(&x))?;
    inst.launch(&kargs).map_err(|x| e(&x))?;
    dev.synchronize().map_err(|x| e(&x))?;
    println!(
        "launch   grid {:?} block {} smem {} B",
        inst.launch.grid, inst.launch.block.0, inst.launch.dynamic_smem_bytes
    );

    // cuBLASLt: both per-tensor scales 1 (the tessel kernel applies none).
    let one = DeviceTensor::<f32>::from_host(dev, &[1], &[1.0]).map_err(|x| e(&x))?;
    let scales = Scales {
        a: one.view().device_ptr(),
        b: one.view().device_ptr(),
    };
    let g = plan_nt(m, n, k);
    let mut lt = LtRef::new(dev).map_err(|x| e(&x))?;
    let fp8 = I::DTYPE != DType::S8;
    let settings: &[bool] = if fp8 { &[false, true] } else { &[false] };
    let mut candidates: Vec<(bool, Candidate)> = Vec::new();
    for &fast in settings {
        for c in lt
            .candidates_8bit(&g, I::DTYPE, O::DTYPE, scales, fast, o.algos)
            .map_err(|x| e(&x))?
        {
            candidates.push((fast, c));
        }
    }
    let verify_with = candidates
        .iter()
        .find(|(fast, _)| !fast)
        .copied()
        .ok_or("cuBLASLt proposed no algorithm for this 8-bit GEMM")?;
    let (lp, rp) = (lhs.view().device_ptr(), rhs.view().device_ptr());
    let reference = DeviceTensor::<O>::poisoned(dev, &[m, n]).map_err(|x| e(&x))?;
    let refp = reference.view().device_ptr();
    let mut run_lt = |fast: bool, c: &Candidate| {
        // SAFETY: live device buffers of the shapes the problem was described with; the scale
        // tensor outlives every call.
        unsafe { lt.run_8bit(&g, I::DTYPE, O::DTYPE, scales, fast, c, lp, rp, refp) }
    };
    run_lt(verify_with.0, &verify_with.1).map_err(|x| e(&x))?;
    dev.synchronize().map_err(|x| e(&x))?;
    let tol = gemm_tolerance(I::DTYPE, acc_dtype(O::DTYPE), O::DTYPE, k);
    let verification = verify(
        &out.to_host().map_err(|x| e(&x))?,
        &reference.to_host().map_err(|x| e(&x))?,
        tol,
    )
    .map_err(|x| e(&x))?;
    let spot = spot_check(&ha, &hb, &out.to_host().map_err(|x| e(&x))?, (m, n, k));

    // The strongest reference: the fastest candidate, then interleaved rounds against it.
    let flops = gemm_flops(m, n, k);
    let quick = TimingConfig {
        warmup: 2,
        runs: 20,
    };
    let mut best: Option<(f64, usize)> = None;
    for (i, (fast, c)) in candidates.iter().enumerate() {
        if let Ok(t) = time_gpu(dev, &quick, Some(flops), || run_lt(*fast, c))
            && best.is_none_or(|(ms, _)| t.median_ms < ms)
        {
            best = Some((t.median_ms, i));
        }
    }
    let (_, bi) = best.ok_or("no cuBLASLt algorithm ran")?;
    let (bfast, bc) = candidates[bi];
    let tc = TimingConfig {
        warmup: 3,
        runs: o.runs.max(20),
    };
    let (mut mine, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        mine.push(time_gpu(dev, &tc, Some(flops), || inst.launch(&kargs)).map_err(|x| e(&x))?);
        theirs.push(time_gpu(dev, &tc, Some(flops), || run_lt(bfast, &bc)).map_err(|x| e(&x))?);
    }
    let mut regimes = Vec::new();
    if o.regimes {
        let clocks = Clocks::open(dev).ok();
        let mut w_tessel = || inst.launch(&kargs).map_err(|x| x.to_string());
        let mut w_lt = || run_lt(bfast, &bc).map_err(|x| x.to_string());
        let mut work: [Work<'_>; 2] = [&mut w_tessel, &mut w_lt];
        let burst = regime::burst(
            dev,
            clocks.as_ref(),
            &BurstConfig::default(),
            Some(flops),
            &mut work,
        )
        .map_err(|x| e(&x))?;
        let scfg = SustainedConfig {
            soak_s: o.soak,
            ..SustainedConfig::default()
        };
        let sustained = regime::sustained(dev, clocks.as_ref(), &scfg, Some(flops), &mut work)
            .map_err(|x| e(&x))?;
        regimes.push(("burst", burst));
        regimes.push(("sustained", sustained));
    }
    Ok(Measured {
        regimes,
        verification,
        spot,
        tessel: crate::sweep::combine(&mine, Some(flops)),
        cublaslt: crate::sweep::combine(&theirs, Some(flops)),
        algo: format!(
            "{} (rank {}, FAST_ACCUM {})",
            bc.desc,
            bc.rank,
            if bfast { "on" } else { "off" }
        ),
    })
}

/// The accumulator of an 8-bit GEMM with this output: s32 for s32, else f32.
fn acc_dtype(out: DType) -> DType {
    if out == DType::S32 {
        DType::S32
    } else {
        DType::F32
    }
}

/// Recomputes 512 sampled outputs in f64 from the host inputs: a check that does not trust
/// cuBLASLt. Returns (samples, max error relative to max |ref|).
fn spot_check<I: Element, O: Element>(
    a: &[I],
    b: &[I],
    c: &[O],
    (m, n, k): (usize, usize, usize),
) -> (usize, f64) {
    let mut rng = tessel_runtime::dtype::SplitMix64::new(7);
    let samples = 512.min(m * n);
    let (mut worst, mut scale) = (0.0f64, 0.0f64);
    for _ in 0..samples {
        let (i, j) = ((rng.next_u64() as usize) % m, (rng.next_u64() as usize) % n);
        let r: f64 = (0..k)
            .map(|p| a[i * k + p].to_f64() * b[j * k + p].to_f64())
            .sum();
        worst = worst.max((c[i * n + j].to_f64() - r).abs());
        scale = scale.max(r.abs());
    }
    (samples, worst / scale.max(1e-30))
}
