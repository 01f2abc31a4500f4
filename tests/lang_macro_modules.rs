//! Several `__co__` functions in one `gemm_kernel!` (tokens or a program file): each is a kernel
//! module of its own, with the header items written before it, its own DSL text (so its later
//! stages re-parse that function alone), its own emitted CUDA and checks.

use tessel::gemm_kernel;

gemm_kernel! {
    const W = 64;
    __co__ void add_one(f32 [N] x, f32 [N] y) {
        parallel {b} by [cdiv(N, W)] : block, {t} by [W] : thread {
            if (b # t < N)
                y.at(b # t) = x.at(b # t) + 1.0f;
        }
    }
    tunable H in [32, 64] = 32;
    __co__ void halve(f32 [N] x, f32 [N] y) {
        parallel {b} by [cdiv(N, H)] : block, {t} by [H] : thread {
            if (b # t < N)
                y.at(b # t) = x.at(b # t) * 0.5f;
        }
    }
}

gemm_kernel!(file = "tests/data/lang_files/two_functions.co");

#[test]
fn each_function_of_an_invocation_is_its_own_module() {
    assert_eq!(add_one::KERNEL.name, "add_one");
    assert_eq!(halve::KERNEL.name, "halve");
    // Header items before a function are its own: `H` is `halve`'s tunable only.
    assert!(add_one::KERNEL.tunables.is_empty());
    let names: Vec<&str> = halve::KERNEL.tunables.iter().map(|t| t.name).collect();
    assert_eq!(names, ["H"]);
    assert!(add_one::CUDA.contains("+ 1.0f"), "{}", add_one::CUDA);
    assert!(!add_one::CUDA.contains("0.5f"), "{}", add_one::CUDA);
    assert!(halve::CUDA.contains("* 0.5f"), "{}", halve::CUDA);
    assert!(!halve::IR.contains("add_one"), "{}", halve::IR);
    // Each carries a text of its own: the later stages re-parse one function.
    for def in [&add_one::KERNEL, &halve::KERNEL] {
        let m = def.module().unwrap_or_else(|d| panic!("{}: {d}", def.name));
        assert_eq!(m.kernel.name.name, def.name);
    }
    add_one::check(&add_one::config(), None).expect("add_one checks");
    halve::check(&halve::config(), None).expect("halve checks");
}

#[test]
fn each_function_of_a_program_file_is_its_own_module() {
    for (def, op) in [(&negate::KERNEL, "-"), (&square::KERNEL, "*")] {
        assert_eq!(def.file, Some("tests/data/lang_files/two_functions.co"));
        let m = def.module().unwrap_or_else(|d| panic!("{}: {d}", def.name));
        assert_eq!(m.kernel.name.name, def.name);
        assert!(def.cuda.contains(op), "{}: {}", def.name, def.cuda);
        assert!(def.dsl.contains(&format!("__co__ void {}(", def.name)));
    }
    assert!(!negate::KERNEL.dsl.contains("__co__ void square("));
    assert!(!square::KERNEL.dsl.contains("__co__ void negate("));
    negate::check(&negate::config(), None).expect("negate checks");
    square::check(&square::config(), None).expect("square checks");
}
