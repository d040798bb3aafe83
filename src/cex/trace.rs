//! From a confirmed run to a [`Counterexample`]: arguments and inputs as the native program
//! was served them, and the path from the interpreter of the lifted program.

use super::exec::{ExecEnd, Execution};
use super::replay::Served;
use crate::check::{Counterexample, NondetValue, TraceStep};
use crate::ir::{CheckId, Function, SourceLoc, Ty};

/// The counterexample of a confirmed run that reached `site` (a check and its location):
/// `args` are the bits of the entry's arguments (`argc` of a `main`, or what a driver
/// `main` was served), `inputs` what the native program was served after them, `execution`
/// the interpretation of the lifted program on them.
pub fn counterexample(
    func: &Function,
    site: (CheckId, Option<&SourceLoc>),
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
    let unsigned = super::readings::unsigned_variables(func);
    let args = func
        .params
        .iter()
        .zip(args)
        .enumerate()
        .map(|(i, (p, bits))| {
            let info = func.value(*p);
            let name = parameter_name(func, i);
            let mut arg = value(name.clone(), info.ty.width, *bits, func.loc.clone());
            if unsigned.contains(&name) {
                arg.value = info.ty.mask(*bits) as i128;
            }
            arg
        })
        .collect();
    // The interpreter consumed the inputs the lifted program reads (not the text of the
    // arguments, `scanf`'s conversions, the buffers of pointer parameters: it reads those
    // back from memory as arbitrary values): the locations it recorded are theirs, in order.
    let mut consumed = execution.input_locs.iter();
    let inputs = inputs
        .iter()
        .map(|s| {
            let loc = if super::replay::lifted_program_reads(&s.function) {
                consumed.next().cloned().flatten()
            } else {
                None
            };
            value(s.function.clone(), s.width, s.bits, loc)
        })
        .collect();
    let mut steps: Vec<TraceStep> = Vec::new();
    let mut confirmed_by = confirmed_by.to_string();
    match &execution.end {
        ExecEnd::Error(c) if *c == site.0 => {}
        ExecEnd::Budget => confirmed_by.push_str("; the path shown is a prefix"),
        _ => {
            // The interpretation left the run's path (at a value it does not model): its
            // steps would not be the run's.
            confirmed_by.push_str(
                "; the path is not shown: it depends on values the analysis does not model",
            );
            steps.push(TraceStep {
                loc: site.1.cloned(),
                values: vec![],
            });
            return Counterexample {
                args,
                inputs,
                steps,
                confirmed_by,
            };
        }
    }
    let split = execution.steps.len().min(super::exec::KEEP_FIRST);
    steps.extend(execution.steps[..split].iter().cloned());
    if execution.omitted_steps > 0 {
        steps.push(omitted_marker(execution.omitted_steps));
    }
    steps.extend(execution.steps[split..].iter().cloned());
    Counterexample {
        args,
        inputs,
        steps,
        confirmed_by,
    }
}

/// An input as a reader sees it: `f() = 3 (i32)` for a function's result, `argv[1] = "100"`
/// for the text of an argument, `getenv(HOME) = "7"` (or `unset`) for an environment
/// variable, `scanf %d = 7 (i32)` for a conversion.
pub fn input_text(v: &NondetValue) -> String {
    use super::replay::{ARGV_INPUT_PREFIX, FLOAT_INPUT_PREFIX, GETENV_INPUT_PREFIX};
    let name = &v.function;
    if name.starts_with(ARGV_INPUT_PREFIX) {
        format!("{name} = \"{}\"", v.value)
    } else if name.starts_with(GETENV_INPUT_PREFIX) && v.value == 0 {
        format!("{name} = unset")
    } else if name.starts_with(GETENV_INPUT_PREFIX) {
        format!("{name} = \"{}\"", v.value)
    } else if name.starts_with(FLOAT_INPUT_PREFIX) {
        format!("{name} = {} (converted to floating point)", v.value)
    } else if name.starts_with('<') || name.contains(' ') {
        format!("{name} = {} (i{})", v.value, v.width)
    } else {
        format!("{name}() = {} (i{})", v.value, v.width)
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
