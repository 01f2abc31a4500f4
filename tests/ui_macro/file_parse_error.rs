// expect: E0004 from a `.co` file that does not parse: the message carries the file's line:col.
use tessel::gemm_kernel;

gemm_kernel!(file = "tests/ui_macro/data/missing_semicolon.co");

fn main() {}
