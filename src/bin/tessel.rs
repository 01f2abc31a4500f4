//! `tessel check|ir|emit FILE.co [--set NAME=V]` — see `tessel::cli`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (out, code) = tessel::cli::run(&args);
    if code == 0 {
        print!("{out}");
    } else {
        eprint!("{out}");
    }
    std::process::exit(code);
}
