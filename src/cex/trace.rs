//! From a confirmed run to a [`Counterexample`]: arguments and inputs as the native program
//! was served them, and the path from the interpreter of the lifted program.

use super::exec::{ExecEnd, Execution};
use super::replay::Served;
use super::InputKinds;
use crate::check::{Counterexample, NondetValue, TraceStep};
use crate::ir::{Function, SourceLoc, Ty};

/// The counterexample of a confirmed run. `served` is everything the native program was
/// served, arguments first when `args_served` (a driver `main` called the entry).
pub fn counterexample(
    func: &Function,
    kinds: &InputKinds,
    served: &[Served],
    args_served: bool,
    execution: &Execution,
    confirmed_by: &str,
) -> Counterexample {
    let _ = kinds;
    let value = |s: &Served, loc: Option<SourceLoc>| -> NondetValue {
        let w = s.width.max(1);
        let ty = Ty::int(w);
        let v = if w == 1 {
            (s.bits & 1) as i128
        } else {
            ty.to_signed(s.bits)
        };
        NondetValue {
            function: s.function.clone(),
            width: s.width,
            value: v,
            loc,
        }
    };
    let n_args = if args_served {
        served
            .iter()
            .take_while(|s| s.function.starts_with("<arg "))
            .count()
    } else {
        0
    };
    let args = served[..n_args]
        .iter()
        .map(|s| value(s, func.loc.clone()))
        .collect();
    let inputs = served[n_args..]
        .iter()
        .enumerate()
        .map(|(i, s)| value(s, execution.input_locs.get(i).cloned().flatten()))
        .collect();
    let mut steps: Vec<TraceStep> = Vec::new();
    let split = execution.steps.len().min(super::exec::KEEP_FIRST);
    steps.extend(execution.steps[..split].iter().cloned());
    if execution.omitted_steps > 0 {
        steps.push(omitted_marker(execution.omitted_steps));
    }
    steps.extend(execution.steps[split..].iter().cloned());
    let mut confirmed_by = confirmed_by.to_string();
    match &execution.end {
        ExecEnd::Error(_) => {}
        ExecEnd::Budget => confirmed_by.push_str("; the path shown is a prefix"),
        _ if execution.approximate => confirmed_by.push_str(
            "; the lifted program diverges from the native run (the path shown is approximate)",
        ),
        other => confirmed_by.push_str(&format!(
            "; the lifted program's path ends differently ({other:?})"
        )),
    }
    Counterexample {
        args,
        inputs,
        steps,
        confirmed_by,
    }
}

/// The name of the pseudo-variable of a step that stands for omitted steps.
pub const OMITTED: &str = "<omitted steps>";

fn omitted_marker(n: usize) -> TraceStep {
    TraceStep {
        loc: None,
        values: vec![(OMITTED.to_string(), n as i128)],
    }
}

/// The number of steps a marker step stands for, if it is one.
pub fn omitted(step: &TraceStep) -> Option<usize> {
    match step.values.as_slice() {
        [(name, n)] if step.loc.is_none() && name == OMITTED => Some(*n as usize),
        _ => None,
    }
}
