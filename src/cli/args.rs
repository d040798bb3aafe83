//! Arguments shared by several subcommands, and their conversion to typed configurations.

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
    #[arg(long, value_delimiter = ',')]
    pub entry: Vec<String>,
    /// Target data model.
    #[arg(long, value_enum)]
    pub data_model: Option<DataModelArg>,
    /// Shorthand for --data-model ILP32.
    #[arg(long = "m32")]
    pub m32: bool,
    /// Extra clang flags for C inputs, as one string (split on whitespace).
    #[arg(long, allow_hyphen_values = true)]
    pub cflags: Option<String>,
    /// Include directory for C inputs.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<String>,
    /// Macro definition for C inputs.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// Callees larger than this many instructions are not inlined.
    #[arg(long, default_value_t = 2000)]
    pub inline_limit: usize,
    /// A caller grows by inlining to at most this many instructions; a call that would take
    /// it past stays a call (its callee is analyzed on its own). Bounds the front end's time
    /// and memory.
    #[arg(long, value_name = "N", default_value_t = crate::frontend::INLINE_CALLER_LIMIT)]
    pub inline_caller_limit: usize,
    /// Functions larger than this many instructions after inlining are neither optimized nor
    /// lifted: their assertions are reported unknown (budget: front end).
    #[arg(long, value_name = "N", default_value_t = crate::frontend::LIFT_LIMIT)]
    pub lift_limit: usize,
    /// What to check, comma-separated: assert (assertions and error calls), overflow
    /// (signed overflow of +, -, * in unoptimized code, and of / and % by -1), div
    /// (division or remainder by zero), shift (shift amount not less than the width, and a
    /// signed << of a negative value or whose result does not fit, as UBSan's
    /// -fsanitize=shift-base checks it), bounds
    /// (array subscript out of the bounds of an array of statically known size, as UBSan's
    /// -fsanitize=array-bounds checks it; accesses through pointers are not checked), all.
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
    /// The front-end configuration these arguments describe.
    pub fn frontend_config(&self) -> Result<FrontendConfig> {
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
            inline_limit: self.inline_limit,
            inline_caller_limit: self.inline_caller_limit,
            lift_limit: self.lift_limit,
            checks: self.checks,
        })
    }
}

/// How to analyze.
#[derive(Args, Debug, Clone)]
pub struct AnalysisArgs {
    /// Fixpoint engine.
    #[arg(long, value_enum, default_value_t = EngineArg::Focus)]
    pub engine: EngineArg,
    /// Numeric abstract domain.
    #[arg(long, value_enum, default_value_t = DomainArg::Poly)]
    pub domain: DomainArg,
    /// Track the program's booleans as predicates in BDDs, combined with the numeric
    /// domain; `--domain poly-pred` implies `on`.
    #[arg(long, value_enum)]
    pub predicates: Option<OnOff>,
    /// How predicates combine with the numeric domain: one numeric state per predicate
    /// valuation (`partitioned`, NEX) or one BDD times one numeric state (`product`,
    /// NEXPOINT).
    #[arg(long, value_enum, default_value_t = PredDomainArg::Partitioned)]
    pub pred_domain: PredDomainArg,
    /// Predicate refinement for assertions path focusing leaves unknown: predicates from
    /// weakest preconditions along abstract error paths, localized to the cut points that
    /// need them, then the analysis re-run with them.
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub refine: OnOff,
    /// Domain types: path focusing over polyhedra tracks at cut points only the values
    /// related to another value (relational packs) that the open assertions depend on; the
    /// interval stage's invariants bound the others. `off` tracks every value.
    #[arg(long, value_enum, default_value_t = if crate::params::Params::DEFAULT.domain_types.enabled { OnOff::On } else { OnOff::Off })]
    pub domain_types: OnOff,
    /// Disequality splitting (issue 17): abstract acceleration of a self-loop sweeps each
    /// side of a disequality `a != b` of the path (`a - b <= -1`, `a - b >= 1`) apart, when
    /// `a - b` moves by at most 1 per iteration.
    #[arg(long, value_enum, default_value_t = on_off(crate::params::Params::DEFAULT.precision.disequality_splitting))]
    pub disequality_splitting: OnOff,
    /// Bounds of bitwise operations with a constant (issue 17): `x | c` and `x & c` bounded
    /// by `x` and `c` in the signed reading too, not only the unsigned one.
    #[arg(long, value_enum, default_value_t = on_off(crate::params::Params::DEFAULT.precision.bitwise_bounds))]
    pub bitwise_bounds: OnOff,
    /// Loop-entry predicates (issue 17): refinement starts with, at each loop head, whether
    /// the loop's exit guard held when the loop was entered (entered or not).
    #[arg(long, value_enum, default_value_t = on_off(crate::params::Params::DEFAULT.precision.loop_entry_predicates))]
    pub loop_entry_predicates: OnOff,
    /// Relational congruences (issue 17): for assertions the engine leaves open, affine
    /// lattices of the values live at each cut point (`x = y`, `z` odd, `y - z ≡ 0 mod 2^32`
    /// across wrap-around), found by the solver next to the engine's invariants. Off by
    /// default: it proves two generated programs wrongly (a known bug, being fixed)
    #[arg(long, value_enum, default_value_t = on_off(crate::params::Params::DEFAULT.precision.relational_congruences))]
    pub relational_congruences: OnOff,
    /// Phase splitting (issue 17): refinement starts with, at each loop head, the guards of
    /// the branches of the loop's body read at the head (`x < 50`), so that each phase of
    /// the loop keeps its own state and is accelerated from it.
    #[arg(long, value_enum, default_value_t = on_off(crate::params::Params::DEFAULT.precision.phase_splitting))]
    pub phase_splitting: OnOff,
    /// Part-wise paths (issue 17): with predicates, a path is applied to each part of the
    /// state on its own, so that disequalities, wrap-around and readings are decided per
    /// part rather than on the hull of the parts.
    #[arg(long, value_enum, default_value_t = on_off(crate::params::Params::DEFAULT.precision.partwise_paths))]
    pub partwise_paths: OnOff,
    /// Extrapolation with a care set (seed 002): for assertions path focusing leaves unknown,
    /// care sets grown backwards along abstract error paths guide widening in a re-run, so
    /// that it keeps the constraints that separate the reachable states from the error
    /// (before predicate refinement, which needs `--refine on`)
    #[arg(long, value_enum, default_value_t = if crate::params::Params::DEFAULT.care_set.enabled { OnOff::On } else { OnOff::Off })]
    pub care_set: OnOff,
    /// The interval pass (issue 14): the classic engine over intervals runs first on every
    /// function, to its fixpoint within a budget of work; its proofs are final and its
    /// invariants seed the chosen engine, which runs only on what it left open (`off`: the
    /// chosen engine alone)
    #[arg(long, value_enum, default_value_t = on_off(crate::params::Params::DEFAULT.stages.interval_pass))]
    pub interval_pass: OnOff,
    /// The interval pass's budget of work per function, in steps (a step is about one
    /// dimension of one state copied or joined): it stops there, at the same step on any
    /// machine and under any load
    #[arg(long, value_name = "STEPS", default_value_t = crate::params::Params::DEFAULT.stages.interval_work)]
    pub interval_work: u64,
    /// Path focusing's budget of solver work per run (the engine, each round of care sets
    /// and of refinement), in z3's resource count (0: none): it stops there, at the same
    /// point on any machine and under any load, and its assertions stay unknown
    #[arg(long, value_name = "UNITS", default_value_t = crate::params::Params::DEFAULT.focus.solver_work)]
    pub focus_work: u64,
    /// Time budget per analyzed function, in seconds (a positive number, at most a year).
    #[arg(long, default_value_t = 60.0, value_parser = parse_seconds)]
    pub timeout: f64,
    /// Time budget of the whole run, loading included, in seconds (0: none): each function with an
    /// assertion gets at most its share of what is left when it starts (the time left
    /// times the number of jobs, divided by the functions not started yet), at least one
    /// second, at most --timeout; with --each-unit, each program gets an equal share of
    /// what is left.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::params::Params::DEFAULT.run.run_budget.as_secs_f64(), value_parser = parse_seconds_or_zero)]
    pub run_budget: f64,
    /// Heap budget per analyzed function, in MB (default: 1500 divided by the number of
    /// functions analyzed at once).
    #[arg(long, value_name = "MB", value_parser = parse_megabytes)]
    pub memory_per_function: Option<f64>,
}

/// Fixpoint engines.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineArg {
    /// Path focusing over the reduced multigraph (SMT-guided).
    Focus,
    /// Classic worklist iteration with widening at cut points and one narrowing pass.
    Classic,
}

/// Numeric domains.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DomainArg {
    /// Convex polyhedra.
    Poly,
    /// Intervals.
    Interval,
    /// Polyhedra with the program's booleans as predicates (see --pred-domain).
    PolyPred,
    /// Intervals with the program's booleans as predicates (see --pred-domain).
    IntervalPred,
}

/// The switch of a default.
fn on_off(on: bool) -> OnOff {
    if on {
        OnOff::On
    } else {
        OnOff::Off
    }
}

/// A switch.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnOff {
    /// Enabled.
    On,
    /// Disabled.
    Off,
}

/// How predicates combine with the numeric domain.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PredDomainArg {
    /// One numeric state per set of predicate valuations (NEX).
    Partitioned,
    /// One BDD and one numeric state (NEXPOINT).
    Product,
}

impl AnalysisArgs {
    /// The domain the `--domain`, `--predicates` and `--pred-domain` flags select.
    pub fn domain_kind(&self) -> crate::driver::DomainKind {
        use crate::driver::DomainKind as K;
        let base_poly = matches!(self.domain, DomainArg::Poly | DomainArg::PolyPred);
        let preds = match self.predicates {
            Some(OnOff::On) => true,
            Some(OnOff::Off) => false,
            None => matches!(self.domain, DomainArg::PolyPred | DomainArg::IntervalPred),
        };
        let product = self.pred_domain == PredDomainArg::Product;
        match (base_poly, preds, product) {
            (true, false, _) => K::Poly,
            (false, false, _) => K::Interval,
            (true, true, false) => K::PolyPred,
            (true, true, true) => K::PolyPredProduct,
            (false, true, false) => K::IntervalPred,
            (false, true, true) => K::IntervalPredProduct,
        }
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
        assert!(parse_megabytes("-5").is_err());
        assert_eq!(parse_megabytes("750"), Ok(750.0));
    }
}
