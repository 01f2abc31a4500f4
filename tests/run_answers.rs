//! `tessel run FILE.co --shape … --input NAME=FILE.npy … --expect NAME=FILE.npy`: every mistake
//! in the files or names is a usage error (exit 2) found before the GPU is opened; a correct
//! command reaches the GPU (exit 3 on a machine without one, `verify=ok` on one with one).

use std::path::{Path, PathBuf};

use npyz::WriterBuilder;
use tessel::cli::exit;
use tessel::cli::run;

const AXPY: &str = "tests/data/heldout/axpy.co";
const SOFTMAX: &str = "tests/data/heldout/softmax_block.co";

fn cli(args: &[&str]) -> (String, i32) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    run(&args)
}

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tessel-run-answers-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn save_f32(dir: &Path, name: &str, shape: &[u64], data: &[f32]) -> String {
    let path = dir.join(name);
    let mut f = std::fs::File::create(&path).unwrap();
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(&mut f)
        .begin_nd()
        .unwrap();
    w.extend(data.iter().copied()).unwrap();
    w.finish().unwrap();
    path.display().to_string()
}

/// A correct command: it is refused only for want of a GPU, or passes on one.
fn reaches_the_gpu(args: &[&str]) {
    let (out, code) = cli(args);
    match code {
        exit::NO_GPU => assert!(out.contains("no GPU"), "{out}"),
        exit::OK => assert!(out.contains("verify=ok"), "{out}"),
        _ => panic!("exit {code}:\n{out}"),
    }
}

#[test]
fn a_correct_answer_command_reaches_the_gpu() {
    let d = dir("ok");
    let x: Vec<f32> = (0..10).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..10).map(|i| 1.0 - i as f32).collect();
    let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 2.0 * x + y).collect();
    let (xs, ys, ws) = (
        save_f32(&d, "x.npy", &[10], &x),
        save_f32(&d, "y.npy", &[10], &y),
        save_f32(&d, "want.npy", &[10], &want),
    );
    let (xi, yi, we) = (format!("x={xs}"), format!("y={ys}"), format!("y={ws}"));
    reaches_the_gpu(&[
        "run", AXPY, "--shape", "N=10", "--scalar", "a=2", "--input", &xi, "--input", &yi,
        "--expect", &we,
    ]);
    // Softmax of a 2 × 3 matrix, the input random: only the output's file is given.
    let p = save_f32(&d, "p.npy", &[2, 3], &[0.2, 0.3, 0.5, 0.1, 0.1, 0.8]);
    reaches_the_gpu(&[
        "run",
        SOFTMAX,
        "--shape",
        "R=2,C=3",
        "--expect",
        &format!("p={p}"),
        "--rtol",
        "1e-2",
    ]);
    // A `bool` scalar is given as 0 or 1 (it reaches the kernel as an `int`).
    let y = save_f32(&d, "y88.npy", &[8, 8], &[0.125; 64]);
    reaches_the_gpu(&[
        "run",
        "kernels/row_softmax.co",
        "--shape",
        "M=8,N=8",
        "--scalar",
        "temperature=1",
        "--scalar",
        "log_out=0",
        "--expect",
        &format!("y={y}"),
        "--rtol",
        "1e-5",
    ]);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn mistakes_in_names_and_files_are_usage_errors_before_the_gpu() {
    let d = dir("bad");
    let y10 = save_f32(&d, "y10.npy", &[10], &[0.0; 10]);
    let y12 = save_f32(&d, "y12.npy", &[12], &[0.0; 12]);
    let m23 = save_f32(&d, "m23.npy", &[2, 5], &[0.0; 10]);
    let text = d.join("y.txt");
    std::fs::write(&text, "1 2 3").unwrap();
    let text = text.display().to_string();
    let base = ["run", AXPY, "--shape", "N=10", "--scalar", "a=1"];
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--expect".into(), "z=".to_string() + &y10],
            "`z` is not a tensor parameter of the kernel (they are x, y)",
        ),
        (
            vec!["--expect".into(), "a=".to_string() + &y10],
            "`a` is a scalar parameter; give it with --scalar a=…",
        ),
        (
            vec![
                "--expect".into(),
                format!("y={}", d.join("none.npy").display()),
            ],
            "cannot read",
        ),
        (
            vec!["--expect".into(), format!("y={text}")],
            "is not a NumPy .npy file",
        ),
        (
            vec!["--expect".into(), format!("y={y12}")],
            "has shape [12], but `y` is [10] for this --shape",
        ),
        (
            vec!["--expect".into(), format!("y={m23}")],
            "has shape [2, 5], but `y` is [10]",
        ),
        (
            vec![
                "--expect".into(),
                format!("y={y10}"),
                "--expect".into(),
                format!("y={y10}"),
            ],
            "`y` is given twice",
        ),
        (
            vec!["--input".into(), format!("x={y10}")],
            "go with --expect NAME=FILE.npy",
        ),
        (vec!["--atol".into(), "1e-3".into()], "go with --expect"),
        (vec!["--expect".into(), "y".into()], "is not NAME=FILE.npy"),
        (
            vec!["--expect".into(), format!("y={y10}"), "--rtol=-1".into()],
            "a tolerance is a finite number",
        ),
    ];
    for (extra, needle) in cases {
        let mut args: Vec<&str> = base.to_vec();
        args.extend(extra.iter().map(String::as_str));
        let (out, code) = cli(&args);
        assert_eq!(code, exit::USAGE, "{args:?}:\n{out}");
        assert!(out.contains(needle), "{args:?}: no `{needle}` in\n{out}");
    }
    // A scalar still needs its value, in this mode too.
    let (out, code) = cli(&[
        "run",
        AXPY,
        "--shape",
        "N=10",
        "--expect",
        &format!("y={y10}"),
    ]);
    assert_eq!(code, exit::USAGE, "{out}");
    assert!(out.contains("scalar parameter `a` needs a value"), "{out}");
    // A dimension without a size.
    let (out, code) = cli(&[
        "run",
        SOFTMAX,
        "--shape",
        "R=2",
        "--expect",
        &format!("p={y10}"),
    ]);
    assert_eq!(code, exit::USAGE, "{out}");
    assert!(
        out.contains("dimension `C` of parameter `s` needs a size"),
        "{out}"
    );
    std::fs::remove_dir_all(&d).ok();
}
