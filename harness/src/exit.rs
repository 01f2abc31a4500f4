//! Process exit codes of the example programs (the `tessel` command uses the same table):
//!
//! | code | meaning |
//! |---|---|
//! | 0 | ok |
//! | 1 | a check or verification failed |
//! | 2 | usage error (bad flag or value) |
//! | 3 | no GPU, or the CUDA driver is unavailable |
//! | 4 | any other runtime error |
//!
//! `--help` and `--version` print and exit 0.

use clap::Parser;

/// Everything went through.
pub const OK: i32 = 0;
/// A check or verification failed.
pub const FAILED: i32 = 1;
/// A bad flag or value.
pub const USAGE: i32 = 2;
/// No GPU, or the CUDA driver is unavailable.
pub const NO_GPU: i32 = 3;
/// Any other runtime error.
pub const RUNTIME: i32 = 4;

/// Why an example stopped.
#[derive(Debug)]
pub enum Error {
    /// A bad flag or value that clap could not see (a tunable the kernel lacks …).
    Usage(String),
    /// No GPU or CUDA driver.
    NoGpu(String),
    /// Anything else.
    Runtime(String),
}

impl From<String> for Error {
    fn from(s: String) -> Self {
        Error::Runtime(s)
    }
}

impl From<&str> for Error {
    fn from(s: &str) -> Self {
        Error::Runtime(s.to_string())
    }
}

impl Error {
    /// The exit code.
    pub fn code(&self) -> i32 {
        match self {
            Error::Usage(_) => USAGE,
            Error::NoGpu(_) => NO_GPU,
            Error::Runtime(_) => RUNTIME,
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        match self {
            Error::Usage(m) | Error::NoGpu(m) | Error::Runtime(m) => m,
        }
    }
}

/// Prints the error (if any) on stderr and turns the result into an exit code: `Ok(true)` → 0,
/// `Ok(false)` (a failed verification) → 1, an error → its code.
pub fn finish(example: &str, r: Result<bool, Error>) -> i32 {
    match r {
        Ok(true) => OK,
        Ok(false) => FAILED,
        Err(e) => {
            eprintln!("{example}: {}", e.message());
            e.code()
        }
    }
}

/// Parses `args` (without the program name) as `T` under the name `example`. `--help` and
/// `--version` print and give `Err(0)`; a usage error prints clap's message and gives
/// `Err(2)`.
pub fn parse<T: Parser>(example: &str, args: &[String]) -> Result<T, i32> {
    let cmd = T::command()
        .name(example.to_string())
        .bin_name(example.to_string());
    let argv = std::iter::once(example.to_string()).chain(args.iter().cloned());
    let res = cmd
        .try_get_matches_from(argv)
        .and_then(|mut m| T::from_arg_matches_mut(&mut m));
    res.map_err(|e| {
        let _ = e.print();
        if e.use_stderr() { USAGE } else { OK }
    })
}
