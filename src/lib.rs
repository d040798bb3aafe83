//! polyfocus: proves or refutes assertions in C programs from their LLVM bitcode.
//!
//! Data flows one way: [`frontend`] (load, link, normalize, lift) → [`ir`] (the lifted
//! program) → [`graph`] (cut points, reduced multigraph) → [`domain`] (numeric abstract
//! domains) → [`analysis`] (fixpoint engines) → [`check`] (verdicts) → [`report`] ← `cli`.

pub mod analysis;
pub mod bench;
pub mod budget;
pub mod cex;
pub mod check;
pub mod cli;
pub mod clock;
pub mod context;
pub mod domain;
pub mod driver;
pub mod frontend;
pub mod graph;
pub mod interrupt;
pub mod ir;
pub mod memory;
pub mod params;
pub mod progress;
pub mod report;
pub mod smt;
pub mod soundness;
