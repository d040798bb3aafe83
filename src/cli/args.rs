//! Arguments shared by several subcommands, and their conversion to typed configurations.

use super::tuning::{parse_setting, Scope, Setting, Tuning};
use crate::frontend::{DataModel, EntrySelection, FrontendConfig};
use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// What to load and how to compile it.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// Input files: C (.c, .i), LLVM bitcode (.bc) or textual IR (.ll); linked together.
    #[arg(required_unless_present = "project")]
    pub files: Vec<PathBuf>,
    /// A whole project: BUILD_DIR/compile_commands.json (or that file); each C translation
    /// unit is compiled with its own flags, then linked (`check` only).
    #[arg(
        short = 'p',
        long = "project",
        value_name = "BUILD_DIR",
        conflicts_with = "files"
    )]
    pub project: Option<PathBuf>,
    /// With --project: analyze each translation unit as a program of its own instead of
    /// linking them (for projects that build several shared objects from one database, such
    /// as the modules of a Python extension package).
    #[arg(long, requires = "project")]
    pub each_unit: bool,
    /// Function where execution starts (default: main, or every external function);
    /// repeat it, or separate names with commas, for several library entry points.
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub entry: Vec<String>,
    /// Target data model.
    #[arg(long, value_enum)]
    pub data_model: Option<DataModelArg>,
    /// Shorthand for --data-model ILP32.
    #[arg(long = "m32")]
    pub m32: bool,
    /// Extra clang flags for C inputs, as one string (split on whitespace).
    #[arg(long, value_name = "FLAGS", allow_hyphen_values = true)]
    pub cflags: Option<String>,
    /// Include directory for C inputs.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<String>,
    /// Macro definition for C inputs.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// What to check, comma-separated: assert (assertions and error calls), overflow
    /// (signed overflow of +, -, * in unoptimized code, and of / and % by -1), div
    /// (division or remainder by zero), shift (shift amount not less than the width, and a
    /// signed << of a negative value or whose result does not fit, as UBSan's
    /// -fsanitize=shift-base checks it), bounds
    /// (array subscript out of the bounds of an array of statically known size, as UBSan's
    /// -fsanitize=array-bounds checks it), memory (accesses through pointers outside their
    /// object or through NULL, use after free, invalid free, leaks), all.
    #[arg(long, value_name = "LIST", default_value = "assert", value_parser = parse_checks)]
    pub checks: crate::ir::CheckSelection,
}

/// `--checks LIST`.
pub fn parse_checks(text: &str) -> Result<crate::ir::CheckSelection, String> {
    crate::ir::CheckSelection::parse(text)
}

/// The data model as spelled on the command line.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataModelArg {
    /// 32-bit long and pointers.
    #[value(name = "ILP32", alias = "ilp32")]
    Ilp32,
    /// 64-bit long and pointers.
    #[value(name = "LP64", alias = "lp64")]
    Lp64,
}

impl InputArgs {
    /// The front-end configuration these arguments describe, with the front end's `-Z`
    /// options of `tuning`.
    pub fn frontend_config(&self, tuning: &Tuning) -> Result<FrontendConfig> {
        let data_model = match (self.m32, self.data_model) {
            (true, Some(DataModelArg::Lp64)) => bail!("-m32 contradicts --data-model LP64"),
            (true, _) | (false, Some(DataModelArg::Ilp32)) => DataModel::Ilp32,
            (false, _) => DataModel::Lp64,
        };
        let mut cflags: Vec<String> = self
            .cflags
            .as_deref()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_string)
            .collect();
        cflags.extend(self.include.iter().map(|d| format!("-I{d}")));
        cflags.extend(self.define.iter().map(|d| format!("-D{d}")));
        Ok(FrontendConfig {
            inputs: self.files.clone(),
            cflags,
            data_model,
            entry: EntrySelection::from_names(&self.entry),
            inline_limit: tuning.inline_limit,
            inline_caller_limit: tuning.inline_caller_limit,
            lift_limit: tuning.lift_limit,
            checks: self.checks,
            options: tuning.frontend.clone(),
        })
    }
}

/// The budgets of the analysis.
#[derive(Args, Debug, Clone)]
pub struct AnalysisArgs {
    /// Time budget per analyzed function, in seconds of CPU time of the thread that analyzes
    /// it, so that other processes' load does not change it (a positive number, at most a
    /// year; a wall-clock stop at 8 times it remains as a safety net).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, value_parser = parse_seconds)]
    pub timeout: f64,
    /// Time budget of the whole run, loading included, in seconds (0: none): each function
    /// with an assertion left open by the interval pass gets the same budget, half the run's
    /// budget times the number of jobs divided by the number of such functions, at least 0.25
    /// s, at most --timeout, whatever the machine's load; a function not started when the
    /// run's budget is spent gets no analysis. The run's budget is CPU time per job (of the
    /// process and the compilers it runs), with a wall-clock stop at 8 times it. With
    /// --each-unit, each program plans with a part of what the programs before it left: half
    /// shared equally, half by size.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::params::Params::DEFAULT.run.run_budget.as_secs_f64(), value_parser = parse_seconds_or_zero)]
    pub run_budget: f64,
    /// Heap budget per analyzed function, in MB (default: 1500 divided by the number of
    /// functions analyzed at once).
    #[arg(long, value_name = "MB", value_parser = parse_megabytes)]
    pub memory_per_function: Option<f64>,
}

/// The internal options: `-Z NAME=VALUE`, listed by `-Z help` ([`super::tuning`]).
#[derive(Args, Debug, Clone, Default)]
pub struct TuningArgs {
    /// Internal option for measuring and debugging, NAME=VALUE (repeatable; -Z help lists
    /// them).
    #[arg(short = 'Z', value_name = "NAME=VALUE", hide = true, value_parser = parse_setting)]
    pub settings: Vec<Setting>,
}

impl TuningArgs {
    /// The options of a command of `scope`, resolved over the defaults.
    pub fn resolve(&self, scope: Scope) -> Result<Tuning> {
        Tuning::from_settings(&self.settings, scope).map_err(anyhow::Error::msg)
    }

    /// The options as arguments of another `polyfocus` command (`-Z NAME=VALUE` each).
    pub fn as_args(&self) -> Vec<String> {
        self.settings
            .iter()
            .flat_map(|s| ["-Z".to_string(), s.as_arg()])
            .collect()
    }
}

/// The number of functions analyzed at once: at least 1.
pub fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("0 jobs cannot analyze anything: give at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{text}` is not a number of jobs")),
    }
}

/// The longest time budget accepted: a year. Budgets become `Duration`s and deadlines
/// `Instant + Duration`, which overflow (and panic) on values like `1e20` or `inf`.
const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// A time budget in seconds: a positive finite number, at most [`MAX_SECONDS`].
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    let value = positive_number(text, "seconds")?;
    if value > MAX_SECONDS {
        return Err(format!(
            "{text} seconds is more than a year ({MAX_SECONDS} s); give a shorter budget"
        ));
    }
    Ok(value)
}

/// A duration in seconds, or 0 for none.
fn parse_seconds_or_zero(text: &str) -> Result<f64, String> {
    if text.trim().parse::<f64>() == Ok(0.0) {
        return Ok(0.0);
    }
    parse_seconds(text)
}

/// A size in MB: a positive finite number, at most a petabyte.
fn parse_megabytes(text: &str) -> Result<f64, String> {
    let value = positive_number(text, "MB")?;
    if value > 1e9 {
        return Err(format!("{text} MB is more than a petabyte"));
    }
    Ok(value)
}

fn positive_number(text: &str, unit: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of {unit}"))?;
    // `nan` parses, and compares false with everything: reject it explicitly.
    if !value.is_finite() || value <= 0.0 {
        return Err(format!(
            "`{text}` is not a positive, finite number of {unit}"
        ));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_reject_what_would_overflow_or_mean_nothing() {
        assert_eq!(parse_seconds("10"), Ok(10.0));
        assert_eq!(parse_seconds("0.5"), Ok(0.5));
        for bad in [
            "0", "-1", "nan", "NaN", "inf", "-inf", "1e20", "infinity", "ten", "",
        ] {
            assert!(parse_seconds(bad).is_err(), "{bad} accepted");
        }
        assert!(parse_megabytes("nan").is_err());
        assert!(parse_jobs("0").is_err());
        assert_eq!(parse_jobs("2"), Ok(2));
        assert!(parse_megabytes("-5").is_err());
        assert_eq!(parse_megabytes("750"), Ok(750.0));
    }
}
