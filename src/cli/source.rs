//! What every subcommand starts from: a `.co` file, read, parsed and checked for a
//! configuration (`--set NAME=V` over the tunables' defaults), and the error type that carries
//! an exit code.

use std::path::PathBuf;

use clap::Args;
use dsl_core::check::{self, Config, KernelInfo, Limits};
use dsl_core::ir::Module;

use super::{exit, render};

/// The kernel file and its configuration.
#[derive(Debug, Clone, Args)]
pub struct KernelArgs {
    /// The Croqtile kernel file.
    #[arg(value_name = "FILE.co")]
    pub file: String,
    /// Set a tunable (repeatable); the others keep their defaults.
    #[arg(long = "set", value_name = "NAME=V", value_parser = parse_set)]
    pub sets: Vec<(String, i64)>,
    /// The `__co__` function to use, in a file that holds several (`check` takes every one
    /// without it).
    #[arg(long = "function", value_name = "NAME")]
    pub function: Option<String>,
}

/// A failed command: the text to print (on stderr) and the exit code ([`exit`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The rendered message, ending in a newline.
    pub text: String,
    /// The exit code.
    pub code: i32,
}

impl Failure {
    /// `error: {message}` with an exit code.
    pub fn new(code: i32, message: impl std::fmt::Display) -> Failure {
        Failure {
            text: format!("error: {message}\n"),
            code,
        }
    }
}

/// `NAME=V` with an integer `V`.
pub fn parse_set(s: &str) -> Result<(String, i64), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
    if k.is_empty() {
        return Err(format!("`{s}` has no tunable name"));
    }
    let v: i64 = v
        .trim()
        .parse()
        .map_err(|_| format!("`{v}` is not an integer"))?;
    Ok((k.trim().to_string(), v))
}

/// A kernel file parsed and checked for its configuration.
pub struct Loaded {
    /// The path as given.
    pub file: String,
    /// The file's text.
    pub text: String,
    /// The parsed module.
    pub module: Module,
    /// The configuration: defaults with the `--set` values.
    pub config: Config,
    /// What the checker established for the configuration.
    pub info: KernelInfo,
    /// Notes that are not errors: host C++ skipped in file mode and, when loaded for the
    /// language ([`Loaded::load_language`]), what no lowering handles yet.
    pub notes: Vec<dsl_core::Diagnostic>,
}

/// Which checks a command needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Checks {
    /// Everything `emit` needs, the lowering's gate included.
    Lowering,
    /// The language's checks; the lowering's gate becomes notes (`check`, `ir`).
    Language,
}

impl Loaded {
    /// Reads, parses and checks (sm_90 limits, no problem size): exit 2 for an unreadable file
    /// or an unknown tunable, exit 1 with the rendered diagnostics for a DSL error.
    pub fn load(args: &KernelArgs) -> Result<Loaded, Failure> {
        let text = function_text(args, read(&args.file)?)?;
        let parsed = dsl_core::parse::parse_str(&text, Some(&args.file))
            .map_err(|d| diagnostics(&args.file, &text, &d))?;
        Self::checked(args, text, parsed, Checks::Lowering)
    }

    /// Like [`Loaded::load`], with the language's checks only: what no lowering handles yet
    /// is in [`Loaded::notes`] instead of an error.
    pub fn load_language(args: &KernelArgs) -> Result<Loaded, Failure> {
        let text = function_text(args, read(&args.file)?)?;
        let parsed = dsl_core::parse::parse_str(&text, Some(&args.file))
            .map_err(|d| diagnostics(&args.file, &text, &d))?;
        Self::checked(args, text, parsed, Checks::Language)
    }

    /// Every `__co__` function of the file, each checked for the language on its own (a file
    /// with one function gives one entry, named by that function).
    pub fn load_each(args: &KernelArgs) -> Result<Vec<(String, Result<Loaded, Failure>)>, Failure> {
        if let Some(name) = &args.function {
            return Ok(vec![(name.clone(), Self::load_language(args))]);
        }
        let text = read(&args.file)?;
        Ok(dsl_core::parse::parse_file(&text, Some(&args.file))
            .into_iter()
            .map(|(name, parsed)| {
                let r = parsed
                    .map_err(|d| diagnostics(&args.file, &text, &d))
                    .and_then(|p| Self::checked(args, text.clone(), p, Checks::Language));
                (name, r)
            })
            .collect())
    }

    fn checked(
        args: &KernelArgs,
        text: String,
        parsed: dsl_core::parse::Parsed,
        checks: Checks,
    ) -> Result<Loaded, Failure> {
        let file = args.file.clone();
        // What is emitted and launched is the function's launch form (a body-declared output
        // becomes a parameter); `check` and `ir` show the function as written.
        let launch = dsl_core::lower::launch_form(parsed.module.clone());
        let module = match checks {
            Checks::Lowering => launch.clone(),
            Checks::Language => parsed.module,
        };
        let mut notes = parsed.notes;
        let mut config = Config::defaults(&module);
        for (k, v) in &args.sets {
            if module.tunable(k).is_none() {
                let names: Vec<&str> = module
                    .tunables
                    .iter()
                    .map(|t| t.name.name.as_str())
                    .collect();
                let known = if names.is_empty() {
                    "it has none".to_string()
                } else {
                    format!("it has {}", names.join(", "))
                };
                return Err(Failure::new(
                    exit::USAGE,
                    format!("`{k}` is not a tunable of this kernel ({known})"),
                ));
            }
            config.values.insert(k.clone(), *v);
        }
        let info = match checks {
            Checks::Lowering => check::check_config(&module, &config, None, &Limits::default()),
            Checks::Language => check::check_language(&module, &config, None, &Limits::default())
                .and_then(|(info, _)| {
                    // What no lowering handles is judged on the launch form, which `emit` lowers;
                    // so are its errors (a body-declared output's dimensions as a parameter's).
                    let (_, gate) =
                        check::check_language(&launch, &config, None, &Limits::default())?;
                    notes.extend(gate.0);
                    Ok(info)
                }),
        }
        .map_err(|d| diagnostics(&file, &text, &d))?;
        Ok(Loaded {
            file,
            text,
            module,
            config,
            info,
            notes,
        })
    }

    /// Tunable values in template-parameter order.
    pub fn template_values(&self) -> Vec<i64> {
        self.module
            .tunables
            .iter()
            .map(|t| self.config.values[&t.name.name])
            .collect()
    }

    /// `NAME=V NAME=V …` of the configuration.
    pub fn config_text(&self) -> String {
        if self.config.values.is_empty() {
            "(no tunables)".into()
        } else {
            self.config.to_string()
        }
    }

    /// A diagnostic from a later stage (lowering), rendered against this file.
    pub fn diagnostics(&self, d: &dsl_core::Diagnostics) -> Failure {
        diagnostics(&self.file, &self.text, d)
    }
}

fn read(file: &str) -> Result<String, Failure> {
    std::fs::read_to_string(file)
        .map_err(|e| Failure::new(exit::USAGE, format!("cannot read {file}: {e}")))
}

/// The text of the function a command works on: the file as it is when it holds one `__co__`
/// function (or `--function` names its only one); the named function with the others blanked
/// (lines and columns kept) when it holds several. Several and none named, or a name the file
/// lacks: exit 2, naming the functions.
fn function_text(args: &KernelArgs, text: String) -> Result<String, Failure> {
    let mut texts = dsl_core::parse::function_texts(&text);
    let dups = dsl_core::parse::duplicate_functions(&text);
    if !dups.is_empty() {
        return Err(diagnostics(&args.file, &text, &dsl_core::Diagnostics(dups)));
    }
    let names: Vec<String> = texts.iter().map(|(n, _)| n.clone()).collect();
    match &args.function {
        None if texts.len() <= 1 => Ok(text),
        None => Err(Failure::new(
            exit::USAGE,
            format!(
                "{} holds {} `__co__` functions ({}): choose one with --function NAME",
                args.file,
                texts.len(),
                names.join(", ")
            ),
        )),
        Some(want) => match texts.iter().position(|(n, _)| n == want) {
            Some(_) if texts.len() == 1 => Ok(text),
            Some(i) => Ok(texts.swap_remove(i).1),
            None => Err(Failure::new(
                exit::USAGE,
                format!(
                    "{} has no `__co__` function `{want}` (it holds: {})",
                    args.file,
                    names.join(", ")
                ),
            )),
        },
    }
}

fn diagnostics(file: &str, text: &str, d: &dsl_core::Diagnostics) -> Failure {
    Failure {
        text: render(file, text, d),
        code: exit::FAILED,
    }
}

/// Where outputs go when no path is given: `$CARGO_TARGET_DIR/tessel`, else `target/tessel`
/// when the working directory has a `target/` folder (a cargo project), else the system's
/// temporary folder.
pub fn output_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(d).join("tessel");
    }
    if std::path::Path::new("target").is_dir() {
        return PathBuf::from("target/tessel");
    }
    std::env::temp_dir().join("tessel")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_values_parse() {
        assert_eq!(parse_set("WARP_N=128"), Ok(("WARP_N".into(), 128)));
        assert_eq!(parse_set("X=-1"), Ok(("X".into(), -1)));
        assert!(parse_set("WARP_N").is_err());
        assert!(parse_set("=4").is_err());
        assert!(parse_set("WARP_N=wide").is_err());
    }
}
