//! `gemm_kernel!`: the proc macro is only glue. It hands the tokens (or a `.co` file) to
//! `dsl-core` (parse → check → lower), `codegen-cuda` (emit), and expands the result into a Rust
//! module; diagnostics become `compile_error!`s spanned at the DSL tokens. No logic lives here
//! beyond spans and expansion.

mod args;
mod expand;
mod layout;
mod report;

use proc_macro::TokenStream;

/// Declares a tessel kernel.
///
/// ```ignore
/// tessel::gemm_kernel! {
///     tunable TILE_M in [16, 32] = 32;
///     __co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {
///         // the kernel's body
///     }
/// }
/// // or, reading a Croqtile file (recompiled when it changes):
/// tessel::gemm_kernel!(file = "kernels/v0_naive.co");
/// ```
///
/// Inside the macro write `a # b` with spaces: since Rust 2021, `a#b` is a reserved prefix that
/// rustc rejects before any macro sees it. `.co` files may use `a#b`.
#[proc_macro]
pub fn gemm_kernel(input: TokenStream) -> TokenStream {
    expand::gemm_kernel(input.into()).into()
}
