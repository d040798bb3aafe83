//! polyfocus: proves or refutes assertions in C programs from their LLVM bitcode.
//!
//! Data flows one way: [`frontend`] (load, link, normalize, lift) → [`ir`] (the lifted
//! program) → [`graph`] (cut points, reduced multigraph) → [`domain`] (numeric abstract
//! domains) → [`analysis`] (fixpoint engines) → [`check`] (verdicts) → [`report`] ← `cli`.

pub mod domain;
pub mod ir;
