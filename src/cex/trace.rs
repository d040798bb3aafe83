//! From a confirmed run to a [`Counterexample`]: arguments and inputs as the native program
//! was served them, and the path from the interpreter of the lifted program.

use super::exec::{ExecEnd, Execution};
use super::replay::Served;
use crate::check::{Counterexample, NondetValue, TraceStep};
use crate::ir::{Function, SourceLoc, Ty};

/// The counterexample of a confirmed run: `args` are the bits of the entry's arguments
/// (`argc` of a `main`, or what a driver `main` was served), `inputs` what the native
/// program was served after them.
pub fn counterexample(
    func: &Function,
    args: &[u128],
    inputs: &[Served],
    execution: &Execution,
    confirmed_by: &str,
) -> Counterexample {
    let value = |function: String, width: u32, bits: u128, loc: Option<SourceLoc>| {
        let w = width.max(1);
        let v = if w == 1 {
            (bits & 1) as i128
        } else {
            Ty::int(w).to_signed(bits)
        };
        NondetValue {
            function,
            width,
            value: v,
            loc,
        }
    };
    let args = func
        .params
        .iter()
        .zip(args)
        .enumerate()
        .map(|(i, (p, bits))| {
            let info = func.value(*p);
            value(
                parameter_name(func, i),
                info.ty.width,
                *bits,
                func.loc.clone(),
            )
        })
        .collect();
    // The interpreter consumed every input except those served to `scanf` and the contents
    // of the buffers of pointer parameters (it reads them back from memory as arbitrary
    // values): the locations it recorded are theirs, in order.
    let mut consumed = execution.input_locs.iter();
    let inputs = inputs
        .iter()
        .map(|s| {
            let loc = if s.function == super::replay::SCANF_INPUT
                || s.function.starts_with(super::replay::BUFFER_INPUT_PREFIX)
            {
                None
            } else {
                consumed.next().cloned().flatten()
            };
            value(s.function.clone(), s.width, s.bits, loc)
        })
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

/// The source name of the entry's parameter `i` (from debug info), else its position.
pub fn parameter_name(func: &Function, i: usize) -> String {
    func.params
        .get(i)
        .and_then(|p| func.value(*p).source_name.clone())
        .unwrap_or_else(|| format!("<arg {i}>"))
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
