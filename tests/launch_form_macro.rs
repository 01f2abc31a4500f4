//! `gemm_kernel!` takes a `__co__ auto` function in its launch form: the output declared in the
//! body is the last parameter of the kernel (its `KernelDef`, its emitted CUDA and `check`).

use tessel::gemm_kernel;

gemm_kernel! {
    __co__ auto scale_rows(f32 [M, N] x) {
        f32 [M, N] y;
        parallel {b} by [cdiv(M, 32)] : block, {t} by [32] : thread {
            foreach {j} in [N]
                y.at(b # t, j) = exp(x.at(b # t, j));
        }
        return y;
    }
}

#[test]
fn an_auto_kernel_takes_its_output_as_the_last_parameter() {
    let names: Vec<&str> = scale_rows::KERNEL.params.iter().map(|p| p.name).collect();
    assert_eq!(names, ["x", "y"]);
    assert_eq!(scale_rows::KERNEL.params[1].shape, ["M", "N"]);
    assert!(
        scale_rows::CUDA.contains("float* __restrict__ y"),
        "{}",
        scale_rows::CUDA
    );
    assert!(scale_rows::CUDA.contains("expf("), "{}", scale_rows::CUDA);
    scale_rows::check(&scale_rows::config(), None).expect("checks");
}
