//! Assertions over floats proved by a bit-precise run: for each entry that computes with
//! floats and whose bit-precise form the front end recorded ([`FloatRun`]), the
//! enumeration of its paths (`smt::float_paths`); when every path was followed to its end,
//! the assertion sites no path reaches become path ends, so that the analysis reports them
//! proved as it does the sites the front end removed (no execution reaches them).
//!
//! A site is matched by its kind and location, so one that shares both with a reached site
//! stays. Only assertion sites: the runtime checks stay, whatever the run found.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::frontend::{FloatEvaluation, FloatRun, SSE_FLOAT_FLAGS};
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
        let held = prove(function, &module.checks, run.program, run.evaluation, debug);
        if let Some((warning, held)) = held {
            module.held_at_own_precision.extend(held);
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
/// reaches become path ends; the warning that says so. The run rounds each operation to its
/// type; under the x87's extended precision ([`FloatEvaluation::X87Extended`]) that proves
/// nothing, so the sites stay and are returned: what holds at each type's own precision,
/// for the reason of their verdict.
fn prove(
    function: &mut ir::Function,
    checks: &[ir::Check],
    program: Result<ir::bitprecise::Program, String>,
    evaluation: FloatEvaluation,
    debug: bool,
) -> Option<(ir::LiftWarning, Vec<ir::CheckId>)> {
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
    let mut held = Vec::new();
    for block in &mut function.blocks {
        if let ir::Terminator::Error(c) = block.term {
            let Some(check) = checks.get(c.index()) else {
                continue;
            };
            if is_assertion(c) && !reached.contains(&(check.kind.clone(), check.loc.clone())) {
                match evaluation {
                    FloatEvaluation::OwnPrecision => block.term = ir::Terminator::Stop,
                    FloatEvaluation::X87Extended => held.push(c),
                }
                proved += 1;
            }
        }
    }
    if proved == 0 {
        return None;
    }
    let message = match evaluation {
        FloatEvaluation::OwnPrecision => format!(
            "{proved} of {sites} assertion sites proved unreachable by a bit-precise run \
             over floats ({paths} paths, {steps} steps): no execution reaches them"
        ),
        FloatEvaluation::X87Extended => format!(
            "{proved} of {sites} assertion sites are unreachable when each float operation \
             is rounded to its type ({paths} paths, {steps} steps), but a 32-bit build \
             without `{}` evaluates floats in the x87's extended precision, which is not \
             modeled: they stay unknown",
            SSE_FLOAT_FLAGS.join(" ")
        ),
    };
    let warning = ir::LiftWarning {
        function: function.name.clone(),
        message,
        loc: None,
    };
    Some((warning, held))
}
