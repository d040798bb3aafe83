//! Arguments shared by several subcommands, and their conversion to typed configurations.

use crate::frontend::{DataModel, EntrySelection, FrontendConfig};
use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// What to load and how to compile it.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// Input files: C (.c, .i), LLVM bitcode (.bc) or textual IR (.ll); linked together.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Function where execution starts (default: main, or every external function).
    #[arg(long)]
    pub entry: Option<String>,
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
            entry: match &self.entry {
                Some(name) => EntrySelection::Named(name.clone()),
                None => EntrySelection::Default,
            },
            inline_limit: self.inline_limit,
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
    /// Time budget per analyzed function, in seconds.
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
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
}
