// expect: E0101 from a `.co` file: the message carries the file's line:col.
use tessel::gemm_kernel;

gemm_kernel!(file = "tests/ui_macro/data/unknown_tensor.co");

fn main() {}
