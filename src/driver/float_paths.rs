//! Assertions over floats proved by a bit-precise run: for each entry that computes with
//! floats and whose bit-precise form the front end recorded ([`FloatRun`]), the
//! enumeration of its paths (`smt::float_paths`); when every path was followed to its end,
//! the assertion sites no path reaches become path ends, so that the analysis reports them
//! proved as it does the sites the front end removed (no execution reaches them).
//!
//! A site is matched by its kind and location, so one that shares both with a reached site
//! stays. Only assertion sites: the runtime checks stay, whatever the run found.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::frontend::FloatRun;
use crate::ir;
use crate::smt::float_paths::{self, Outcome};

/// Runs each of `runs` on `module` (see the module docs), with a warning for each function
/// where assertion sites were proved unreachable.
/// `debug` prints each run's outcome on standard error.
pub fn prove_float_assertions(module: &mut ir::Module, runs: Vec<FloatRun>, debug: bool) {
    let mut warnings = Vec::new();
    for run in runs {
        let Some(function) = module.functions.get_mut(run.function) else {
            continue;
        };
        if let Some(warning) = prove(function, &module.checks, run.program, debug) {
            warnings.push((run.warning_at, warning));
        }
    }
    // From the last, so that each place is still where the front end left it.
    for (at, warning) in warnings.into_iter().rev() {
        module
            .warnings
            .insert(at.min(module.warnings.len()), warning);
    }
}

/// The assertion sites of `function` that no path of `program` (its bit-precise form)
/// reaches become path ends; the warning that says so.
fn prove(
    function: &mut ir::Function,
    checks: &[ir::Check],
    program: Result<ir::bitprecise::Program, String>,
    debug: bool,
) -> Option<ir::LiftWarning> {
    let is_assertion = |c: ir::CheckId| {
        checks.get(c.index()).is_some_and(|k| {
            matches!(
                k.kind,
                ir::CheckKind::ErrorCall { .. } | ir::CheckKind::AssertCall { .. }
            )
        })
    };
    let sites = function
        .blocks
        .iter()
        .filter(|b| matches!(b.term, ir::Terminator::Error(c) if is_assertion(c)))
        .count();
    if sites == 0 {
        return None;
    }
    // A panic (a bug, or the solver's bindings refusing a term) proves nothing.
    let outcome = match &program {
        Ok(program) => catch_unwind(AssertUnwindSafe(|| float_paths::explore(program)))
            .unwrap_or_else(|_| Outcome::GaveUp("panic".to_string())),
        Err(why) => Outcome::GaveUp(why.clone()),
    };
    if debug {
        eprintln!("float paths of {}: {outcome:?}", function.name);
    }
    let (
        Ok(program),
        Outcome::Explored {
            reached,
            paths,
            steps,
        },
    ) = (program, outcome)
    else {
        return None;
    };
    let reached: Vec<(ir::CheckKind, Option<ir::SourceLoc>)> = reached
        .into_iter()
        .map(|site| program.sites.get(site).cloned().flatten())
        .collect::<Option<Vec<_>>>()
        .unwrap_or_else(|| {
            // A reached call that is no error site: cannot happen; prove nothing.
            checks
                .iter()
                .map(|c| (c.kind.clone(), c.loc.clone()))
                .collect()
        });
    let mut proved = 0;
    for block in &mut function.blocks {
        if let ir::Terminator::Error(c) = block.term {
            let Some(check) = checks.get(c.index()) else {
                continue;
            };
            if is_assertion(c) && !reached.contains(&(check.kind.clone(), check.loc.clone())) {
                block.term = ir::Terminator::Stop;
                proved += 1;
            }
        }
    }
    (proved > 0).then(|| ir::LiftWarning {
        function: function.name.clone(),
        message: format!(
            "{proved} of {sites} assertion sites proved unreachable by a bit-precise run \
             over floats ({paths} paths, {steps} steps): no execution reaches them"
        ),
        loc: None,
    })
}
