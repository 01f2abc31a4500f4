//! The `tessel` command; see `tessel --help` and [`tessel::cli`]. Output goes to stdout on
//! success (and for `--help` / `--version`), to stderr otherwise; the exit code follows
//! [`tessel::cli::exit`].

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (out, code) = tessel::cli::run(&args);
    if code == tessel::cli::exit::OK {
        print!("{out}");
    } else {
        eprint!("{out}");
    }
    std::process::exit(code);
}
