//! Loading a program for the analysis: the front end's lifting, with what the driver
//! infers and proves around it before the stages run: the contracts of the functions that
//! stay calls ([`super::contracts`]: of recursive functions, and summaries of what the others
//! return), assumed when the program is lifted, and the assertions over
//! floats proved by a bit-precise run ([`super::float_paths`]).

use super::contracts;
use super::float_paths::prove_float_assertions;
use super::AnalysisConfig;
use crate::frontend::{contract::Contracts, FrontendConfig, FrontendError, Llvm, Program};
use crate::ir;

/// Loads and lifts the program of `fe`, without contracts (every call that stays a call
/// returns an arbitrary value), and proves what it can of its assertions over floats.
pub fn load(fe: &FrontendConfig) -> Result<ir::Module, FrontendError> {
    let llvm = Llvm::new();
    let program = Program::prepare(&llvm, fe)?;
    Ok(finish(program, &Contracts::new(), fe))
}

/// [`load`], with the contracts of the functions that stay calls assumed at their calls
/// and entries, searched under the budgets of `config` (see
/// [`contracts::search`]).
pub fn load_with_contracts(
    fe: &FrontendConfig,
    config: &AnalysisConfig,
) -> Result<ir::Module, FrontendError> {
    // Loading spends the run's budget too: the safety net is a share of what is left now.
    let safety_net = contracts::safety_net(config);
    let llvm = Llvm::new();
    let program = Program::prepare(&llvm, fe)?;
    let contracts = contracts::search(&program, config, safety_net, fe.options.debug_contracts);
    Ok(finish(program, &contracts, fe))
}

fn finish(program: Program<'_>, contracts: &Contracts, fe: &FrontendConfig) -> ir::Module {
    let lifted = program.lift(contracts);
    let mut module = lifted.module;
    prove_float_assertions(&mut module, lifted.float_runs, fe.options.debug_floats);
    module
}
