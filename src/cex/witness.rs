//! SV-COMP violation witnesses, format 2.0 (YAML, `entry_type: violation_sequence`).
//!
//! One entry whose content is a sequence of segments: one per input value, a
//! `function_return` waypoint at the call of the nondet function with the constraint
//! `\result == V` (ACSL), and a last segment with the `target` waypoint at the error site.
//! Entry arguments of a non-`main` entry are `assumption` waypoints at the function.

use crate::check::{Counterexample, NondetValue};
use crate::frontend::DataModel;
use crate::ir::SourceLoc;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// What the witness says about the task.
#[derive(Clone, Debug)]
pub struct WitnessTask<'a> {
    /// The program files.
    pub inputs: &'a [PathBuf],
    /// The data model.
    pub data_model: DataModel,
    /// The entry function.
    pub entry: &'a str,
    /// The property the counterexample violates.
    pub property: WitnessProperty<'a>,
    /// Source names of the entry's integer parameters (for the arguments' assumptions).
    pub params: Vec<String>,
}

/// The SV-COMP property a witness is for.
#[derive(Clone, Copy, Debug)]
pub enum WitnessProperty<'a> {
    /// `unreach-call` of this error function (`reach_error`).
    UnreachCall {
        /// The error function.
        error_function: &'a str,
    },
    /// `no-overflow` (`--checks overflow`): the target is the overflowing operation.
    NoOverflow,
}

/// The witness of `cex`, whose error site is at `target`.
pub fn witness_yaml(
    task: &WitnessTask<'_>,
    cex: &Counterexample,
    target: Option<&SourceLoc>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "- entry_type: violation_sequence");
    let _ = writeln!(out, "  metadata:");
    let _ = writeln!(out, "    format_version: \"2.0\"");
    let _ = writeln!(out, "    uuid: {}", quote(&uuid()));
    let _ = writeln!(out, "    creation_time: {}", quote(&creation_time()));
    let _ = writeln!(out, "    producer:");
    let _ = writeln!(out, "      name: polyfocus");
    let _ = writeln!(out, "      version: {}", quote(env!("CARGO_PKG_VERSION")));
    let _ = writeln!(out, "    task:");
    let _ = writeln!(out, "      input_files:");
    for f in task.inputs {
        let _ = writeln!(out, "        - {}", quote(&f.display().to_string()));
    }
    let _ = writeln!(out, "      input_file_hashes:");
    for f in task.inputs {
        let _ = writeln!(
            out,
            "        {}: {}",
            quote(&f.display().to_string()),
            quote(&sha256_of(f).unwrap_or_default())
        );
    }
    let _ = writeln!(
        out,
        "      specification: {}",
        quote(&match task.property {
            WitnessProperty::UnreachCall { error_function } => format!(
                "CHECK( init({}()), LTL(G ! call({error_function}())) )",
                task.entry
            ),
            WitnessProperty::NoOverflow => {
                format!("CHECK( init({}()), LTL(G ! overflow) )", task.entry)
            }
        })
    );
    let _ = writeln!(
        out,
        "      data_model: {}",
        match task.data_model {
            DataModel::Ilp32 => "ILP32",
            DataModel::Lp64 => "LP64",
        }
    );
    let _ = writeln!(out, "      language: C");
    let _ = writeln!(out, "  content:");
    for (i, a) in cex.args.iter().enumerate() {
        let Some(loc) = &a.loc else {
            continue;
        };
        let _ = writeln!(out, "    - segment:");
        let _ = writeln!(out, "        - waypoint:");
        let _ = writeln!(out, "            type: assumption");
        let _ = writeln!(out, "            action: follow");
        write_location(&mut out, loc, task, Some(task.entry), None);
        let _ = writeln!(out, "            constraint:");
        let name = task
            .params
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("arg{i}"));
        // Masked, so that it holds whatever the signedness of the parameter's type.
        let w = a.width.clamp(1, 64);
        let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        let bits = (a.value as i64 as u64) & mask;
        let _ = writeln!(
            out,
            "              value: {}",
            quote(&format!("({name} & {mask:#x}ULL) == {bits:#x}ULL"))
        );
        let _ = writeln!(out, "              format: c_expression");
    }
    for v in &cex.inputs {
        let Some(loc) = &v.loc else {
            continue;
        };
        let _ = writeln!(out, "    - segment:");
        let _ = writeln!(out, "        - waypoint:");
        let _ = writeln!(out, "            type: function_return");
        let _ = writeln!(out, "            action: follow");
        write_location(&mut out, loc, task, None, Some(&v.function));
        let _ = writeln!(out, "            constraint:");
        let _ = writeln!(
            out,
            "              value: {}",
            quote(&format!("\\result == {}", c_value(v)))
        );
        let _ = writeln!(out, "              format: acsl_expression");
    }
    let _ = writeln!(out, "    - segment:");
    let _ = writeln!(out, "        - waypoint:");
    let _ = writeln!(out, "            type: target");
    let _ = writeln!(out, "            action: follow");
    let fallback = SourceLoc {
        file: task
            .inputs
            .first()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        line: 1,
        column: 0,
    };
    write_location(&mut out, target.unwrap_or(&fallback), task, None, None);
    out
}

fn write_location(
    out: &mut String,
    loc: &SourceLoc,
    task: &WitnessTask<'_>,
    function: Option<&str>,
    call_of: Option<&str>,
) {
    let file = witness_file_name(&loc.file, task.inputs);
    let mut column = loc.column;
    if let Some(callee) = call_of {
        if let Some(c) = closing_paren_column(&file, loc, callee) {
            column = c;
        }
    }
    let _ = writeln!(out, "            location:");
    let _ = writeln!(out, "              file_name: {}", quote(&file));
    let _ = writeln!(out, "              line: {}", loc.line.max(1));
    if column > 0 {
        let _ = writeln!(out, "              column: {column}");
    }
    if let Some(f) = function {
        let _ = writeln!(out, "              function: {}", quote(f));
    }
}

/// The file name as the task names it: the input whose name matches the debug-info file.
fn witness_file_name(file: &str, inputs: &[PathBuf]) -> String {
    let base = Path::new(file).file_name();
    for input in inputs {
        if input.as_os_str() == file || (base.is_some() && input.file_name() == base) {
            return input.display().to_string();
        }
    }
    file.to_string()
}

/// The column of the `)` that closes the call of `callee` at `loc` (function_return
/// waypoints point there).
fn closing_paren_column(file: &str, loc: &SourceLoc, callee: &str) -> Option<u32> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().nth(loc.line.checked_sub(1)? as usize)?;
    let bytes = line.as_bytes();
    let start = (loc.column.max(1) - 1) as usize;
    let from = line.get(start..)?.find(callee).map(|p| p + start)?;
    let open = from + line[from..].find('(')?;
    let mut depth = 0i32;
    for (i, b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i as u32 + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The value as the C function's type reads it.
fn c_value(v: &NondetValue) -> String {
    let name = v.function.to_ascii_lowercase();
    let unsigned = v.width == 1
        || [
            "uint", "uchar", "ushort", "ulong", "unsigned", "size_t", "u8", "u16", "u32", "u64",
            "bool",
        ]
        .iter()
        .any(|k| name.contains(k));
    if unsigned && v.value < 0 && v.width < 128 {
        let bits = (v.value as u128) & ((1u128 << v.width) - 1);
        format!("{bits}")
    } else {
        format!("{}", v.value)
    }
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn sha256_of(path: &Path) -> Option<String> {
    let out = std::process::Command::new("sha256sum")
        .arg(path)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace().next().map(str::to_string)
}

fn creation_time() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = secs / 86400;
    let rem = secs % 86400;
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z.rem_euclid(146097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A random (version 4) UUID from the clock and the process id.
fn uuid() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut x = nanos as u64 ^ ((std::process::id() as u64) << 32) ^ 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let (a, b) = (next(), next());
    let b = (b & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000;
    let a = (a & 0xffff_ffff_ffff_0fff) | 0x0000_0000_0000_4000;
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xffff,
        b >> 48,
        b & 0xffff_ffff_ffff
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19723), (2024, 1, 1));
    }

    #[test]
    fn unsigned_values() {
        let v = NondetValue {
            function: "__VERIFIER_nondet_uint".into(),
            width: 32,
            value: -1,
            loc: None,
        };
        assert_eq!(c_value(&v), "4294967295");
    }
}
