//! Recording the polyhedra operations an analysis performs, for replay in the benchmark
//! (`benches/poly.rs`, workload (c)).
//!
//! When a recorder is started ([`start`]), every top-level [`Lattice`]/[`NumericDomain`]
//! operation on a [`Polyhedron`] (join, meet, widen, is_leq, assign, forget, meet_cons) is
//! offered to it with its operands. An operation is kept only when one of its polyhedra has
//! at least [`MIN_CONSTRAINTS`] constraints (operations on the universe, the empty set or a
//! single bound say nothing about a polyhedra library), and per kind of operation a uniform
//! sample of at most [`SAMPLES_PER_OP`] is kept (reservoir sampling with a fixed seed), so a
//! trace stays small whatever the length of the run. [`finish`] writes the samples.
//!
//! **Architecture Invariant:** the domain still does no file IO: the caller opens the sink
//! and hands it over as a `Write`. When no recorder is started, an operation pays one relaxed
//! atomic load. Recording never changes a result.
//!
//! # Trace format
//!
//! Line-based text; blank lines and lines starting with `#` are ignored. A trace starts with
//! the line `polyfocus-polyhedra-trace 1`, then holds records:
//!
//! ```text
//! op NAME                       NAME: join meet widen is_leq assign forget meet_cons
//! poly DIM N                    a polyhedron of DIM dimensions given by N constraints,
//! ge C V:A V:A ...              one per line: C + Σ A·xV >= 0 (`ge`) or = 0 (`eq`)
//! poly DIM bottom               the empty polyhedron of DIM dimensions
//! var V                         assign: the assigned dimension
//! expr C V:A ...                assign: the expression C + Σ A·xV
//! vars V V ...                  forget: the forgotten dimensions
//! cons N                        meet_cons: N constraint lines follow
//! end
//! ```
//!
//! Operands in order: join, meet and is_leq `poly poly` (is_leq asks whether the first is
//! included in the second); widen `poly poly` (the older polyhedron first); assign
//! `poly var expr`; forget `poly vars`; meet_cons `poly cons`. Coefficients are arbitrary
//! precision decimal integers.

use super::core::is_trivial;
use super::Polyhedron;
use crate::domain::linear::{ConsKind, Int, LinCons, LinExpr, Var};
use std::fmt::{self, Write as _};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Operations with fewer constraints than this in every polyhedron operand are not kept
/// (they say nothing about a polyhedra library).
pub const MIN_CONSTRAINTS: usize = 2;

/// At most this many operations of each kind are kept per run.
pub const SAMPLES_PER_OP: usize = 60;

/// The first line of a trace.
pub const HEADER: &str = "polyfocus-polyhedra-trace 1";

/// The kinds of recorded operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpKind {
    /// Convex hull.
    Join,
    /// Intersection.
    Meet,
    /// H79 widening.
    Widen,
    /// Inclusion test.
    IsLeq,
    /// `x := e`.
    Assign,
    /// Existential projection.
    Forget,
    /// Intersection with constraints.
    MeetCons,
}

impl OpKind {
    /// Every kind, in the order of reports.
    pub const ALL: [OpKind; 7] = [
        OpKind::Join,
        OpKind::Meet,
        OpKind::Widen,
        OpKind::IsLeq,
        OpKind::Assign,
        OpKind::Forget,
        OpKind::MeetCons,
    ];

    /// The name used in traces and reports.
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Join => "join",
            OpKind::Meet => "meet",
            OpKind::Widen => "widen",
            OpKind::IsLeq => "is_leq",
            OpKind::Assign => "assign",
            OpKind::Forget => "forget",
            OpKind::MeetCons => "meet_cons",
        }
    }

    fn parse(name: &str) -> Option<OpKind> {
        OpKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// A polyhedron operand of a recorded operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// Number of dimensions.
    pub dim: usize,
    /// Its constraints, or `None` for the empty polyhedron.
    pub cons: Option<Vec<LinCons>>,
}

/// One recorded operation with its operands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Recorded {
    /// `a ⊔ b`.
    Join(Operand, Operand),
    /// `a ⊓ b`.
    Meet(Operand, Operand),
    /// `older ∇ newer`.
    Widen(Operand, Operand),
    /// `a ⊑ b`.
    IsLeq(Operand, Operand),
    /// `p; x := e`.
    Assign(Operand, Var, LinExpr),
    /// `∃ vars. p`.
    Forget(Operand, Vec<Var>),
    /// `p ⊓ cons`.
    MeetCons(Operand, Vec<LinCons>),
}

impl Recorded {
    /// The kind of operation.
    pub fn kind(&self) -> OpKind {
        match self {
            Recorded::Join(..) => OpKind::Join,
            Recorded::Meet(..) => OpKind::Meet,
            Recorded::Widen(..) => OpKind::Widen,
            Recorded::IsLeq(..) => OpKind::IsLeq,
            Recorded::Assign(..) => OpKind::Assign,
            Recorded::Forget(..) => OpKind::Forget,
            Recorded::MeetCons(..) => OpKind::MeetCons,
        }
    }
}

/// A malformed trace line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TraceError {}

/// Starts recording into `sink` (replacing any recorder already started, without writing
/// its samples).
pub fn start(sink: Box<dyn Write + Send>) {
    let mut guard = RECORDER.lock().unwrap_or_else(|e| e.into_inner());
    *guard = Some(Recorder {
        sink,
        samples: Default::default(),
        rng: 0x9E37_79B9_7F4A_7C15,
    });
    ON.store(true, Ordering::Relaxed);
}

/// Stops recording and writes the kept operations (kind by kind, in the order they were
/// performed). Nothing happens when no recorder was started.
pub fn finish() -> std::io::Result<()> {
    ON.store(false, Ordering::Relaxed);
    let taken = RECORDER.lock().unwrap_or_else(|e| e.into_inner()).take();
    let Some(mut rec) = taken else {
        return Ok(());
    };
    writeln!(rec.sink, "{HEADER}")?;
    for kind in OpKind::ALL {
        let Some(reservoir) = rec.samples.get_mut(&kind) else {
            continue;
        };
        reservoir.kept.sort_by_key(|(seq, _)| *seq);
        for (_, text) in &reservoir.kept {
            rec.sink.write_all(text.as_bytes())?;
        }
    }
    rec.sink.flush()
}

/// Parses a trace.
pub fn parse(text: &str) -> Result<Vec<Recorded>, TraceError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    match lines.next() {
        Some((_, HEADER)) => {}
        Some((line, _)) => {
            return Err(TraceError {
                line,
                message: format!("expected `{HEADER}`"),
            })
        }
        None => return Ok(Vec::new()),
    }
    let mut res = Vec::new();
    while let Some((line, l)) = lines.next() {
        let err = |message: String| TraceError { line, message };
        let name = l
            .strip_prefix("op ")
            .ok_or_else(|| err(format!("expected `op NAME`, found `{l}`")))?;
        let kind =
            OpKind::parse(name.trim()).ok_or_else(|| err(format!("unknown operation `{name}`")))?;
        let mut reader = Reader { lines: &mut lines };
        let first = reader.operand()?;
        let op = match kind {
            OpKind::Join => Recorded::Join(first, reader.operand()?),
            OpKind::Meet => Recorded::Meet(first, reader.operand()?),
            OpKind::Widen => Recorded::Widen(first, reader.operand()?),
            OpKind::IsLeq => Recorded::IsLeq(first, reader.operand()?),
            OpKind::Assign => {
                let var = reader.keyword_line("var", |ws| parse_var(ws.first().copied()))?;
                let expr = reader.keyword_line("expr", parse_expr)?;
                Recorded::Assign(first, var, expr)
            }
            OpKind::Forget => {
                let vars = reader
                    .keyword_line("vars", |ws| ws.iter().map(|w| parse_var(Some(w))).collect())?;
                Recorded::Forget(first, vars)
            }
            OpKind::MeetCons => {
                let n = reader.keyword_line("cons", |ws| parse_count(ws.first().copied()))?;
                let cons = (0..n).map(|_| reader.cons()).collect::<Result<_, _>>()?;
                Recorded::MeetCons(first, cons)
            }
        };
        reader.keyword_line("end", |ws| match ws {
            [] => Ok(()),
            _ => Err("`end` takes no argument".to_string()),
        })?;
        res.push(op);
    }
    Ok(res)
}

// ---- recording (called by the trait implementations) ----

/// Whether a recorder is started: the only cost of recording when it is off.
#[inline]
pub(super) fn enabled() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Offers an operation on `polys` (then the rest of its operands, written by `rest`).
pub(super) fn offer(kind: OpKind, polys: &[&Polyhedron], rest: impl FnOnce(&mut String)) {
    if polys.iter().all(|p| n_cons(p) < MIN_CONSTRAINTS) {
        return;
    }
    let mut guard = RECORDER.lock().unwrap_or_else(|e| e.into_inner());
    let Some(rec) = guard.as_mut() else {
        return;
    };
    let draw = rec.next_random();
    let reservoir = rec.samples.entry(kind).or_default();
    reservoir.seen += 1;
    // Algorithm R: the k-th operation replaces a random slot with probability N/k.
    let slot = if reservoir.kept.len() < SAMPLES_PER_OP {
        None
    } else {
        match (draw % reservoir.seen as u64) as usize {
            j if j < SAMPLES_PER_OP => Some(j),
            _ => return,
        }
    };
    let mut text = format!("op {}\n", kind.name());
    for p in polys {
        write_poly(&mut text, p);
    }
    rest(&mut text);
    text.push_str("end\n");
    let entry = (reservoir.seen, text);
    match slot {
        None => reservoir.kept.push(entry),
        Some(j) => reservoir.kept[j] = entry,
    }
}

/// Writes `var V`.
pub(super) fn write_var(out: &mut String, var: Var) {
    let _ = writeln!(out, "var {}", var.index());
}

/// Writes `expr C V:A ...`.
pub(super) fn write_expr(out: &mut String, expr: &LinExpr) {
    out.push_str("expr");
    write_terms(out, expr);
}

/// Writes `vars V V ...`.
pub(super) fn write_vars(out: &mut String, vars: &[Var]) {
    out.push_str("vars");
    for v in vars {
        let _ = write!(out, " {}", v.index());
    }
    out.push('\n');
}

/// Writes `cons N` and the constraints.
pub(super) fn write_cons_list(out: &mut String, cons: &[LinCons]) {
    let _ = writeln!(out, "cons {}", cons.len());
    for c in cons {
        write_cons(out, c);
    }
}

static ON: AtomicBool = AtomicBool::new(false);
static RECORDER: Mutex<Option<Recorder>> = Mutex::new(None);

struct Recorder {
    sink: Box<dyn Write + Send>,
    samples: std::collections::BTreeMap<OpKind, Reservoir>,
    rng: u64,
}

#[derive(Default)]
struct Reservoir {
    /// Operations of this kind offered so far.
    seen: usize,
    /// The sample: sequence number (1-based, among this kind) and the record's text.
    kept: Vec<(usize, String)>,
}

impl Recorder {
    /// xorshift64*: deterministic, so that a single-threaded run records the same sample.
    fn next_random(&mut self) -> u64 {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn n_cons(p: &Polyhedron) -> usize {
    if p.bottom {
        return 0;
    }
    p.blocks
        .iter()
        .map(|b| {
            let c = b.dd.cons();
            c.eqs.len() + c.ineqs.iter().filter(|r| !is_trivial(r)).count()
        })
        .sum()
}

fn write_poly(out: &mut String, p: &Polyhedron) {
    if p.bottom {
        let _ = writeln!(out, "poly {} bottom", p.dim);
        return;
    }
    let cons = p.to_cons_vec();
    let _ = writeln!(out, "poly {} {}", p.dim, cons.len());
    for c in &cons {
        write_cons(out, c);
    }
}

fn write_cons(out: &mut String, c: &LinCons) {
    out.push_str(match c.kind {
        ConsKind::Ge => "ge",
        ConsKind::Eq => "eq",
    });
    write_terms(out, &c.expr);
}

fn write_terms(out: &mut String, e: &LinExpr) {
    let _ = write!(out, " {}", e.constant_part());
    for (v, a) in e.terms() {
        let _ = write!(out, " {}:{a}", v.index());
    }
    out.push('\n');
}

// ---- parsing ----

struct Reader<'r, 'a> {
    lines: &'r mut dyn Iterator<Item = (usize, &'a str)>,
}

impl<'a> Reader<'_, 'a> {
    fn next_line(&mut self) -> Result<(usize, &'a str), TraceError> {
        self.lines.next().ok_or(TraceError {
            line: 0,
            message: "trace ends inside a record".to_string(),
        })
    }

    /// A line `KEYWORD words...`, its words parsed by `f`.
    fn keyword_line<T>(
        &mut self,
        keyword: &str,
        f: impl FnOnce(&[&str]) -> Result<T, String>,
    ) -> Result<T, TraceError> {
        let (line, l) = self.next_line()?;
        let words: Vec<&str> = l.split_whitespace().collect();
        if words.first() != Some(&keyword) {
            return Err(TraceError {
                line,
                message: format!("expected `{keyword} ...`, found `{l}`"),
            });
        }
        f(&words[1..]).map_err(|message| TraceError { line, message })
    }

    fn operand(&mut self) -> Result<Operand, TraceError> {
        let (dim, n) = self.keyword_line("poly", |ws| match ws {
            [dim, "bottom"] => Ok((parse_count(Some(dim))?, None)),
            [dim, n] => Ok((parse_count(Some(dim))?, Some(parse_count(Some(n))?))),
            _ => Err("expected `poly DIM N` or `poly DIM bottom`".to_string()),
        })?;
        let cons = match n {
            None => None,
            Some(n) => Some((0..n).map(|_| self.cons()).collect::<Result<_, _>>()?),
        };
        Ok(Operand { dim, cons })
    }

    fn cons(&mut self) -> Result<LinCons, TraceError> {
        let (line, l) = self.next_line()?;
        let err = |message: String| TraceError { line, message };
        let words: Vec<&str> = l.split_whitespace().collect();
        let kind = match words.first() {
            Some(&"ge") => ConsKind::Ge,
            Some(&"eq") => ConsKind::Eq,
            _ => return Err(err(format!("expected a `ge` or `eq` line, found `{l}`"))),
        };
        let expr = parse_expr(&words[1..]).map_err(err)?;
        Ok(LinCons { expr, kind })
    }
}

fn parse_count(word: Option<&str>) -> Result<usize, String> {
    let w = word.ok_or("missing number")?;
    w.parse().map_err(|_| format!("`{w}` is not a count"))
}

fn parse_var(word: Option<&str>) -> Result<Var, String> {
    let w = word.ok_or("missing dimension")?;
    w.parse::<u32>()
        .map(Var)
        .map_err(|_| format!("`{w}` is not a dimension"))
}

fn parse_int(w: &str) -> Result<Int, String> {
    w.parse().map_err(|_| format!("`{w}` is not an integer"))
}

/// `C V:A V:A ...`.
fn parse_expr(words: &[&str]) -> Result<LinExpr, String> {
    let (c, terms) = words.split_first().ok_or("missing constant")?;
    let mut e = LinExpr::constant(parse_int(c)?);
    for t in terms {
        let (v, a) = t
            .split_once(':')
            .ok_or_else(|| format!("expected `V:A`, found `{t}`"))?;
        e.add_term(parse_int(a)?, parse_var(Some(v))?);
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::poly::Budget;

    fn x(i: u32) -> LinExpr {
        LinExpr::var(Var(i))
    }

    #[test]
    fn a_trace_round_trips() {
        let p = Polyhedron::from_cons(
            3,
            &[
                LinCons::ge(&x(0), &LinExpr::constant(-7)),
                LinCons::le(
                    &x(0).plus(&x(2)),
                    &LinExpr::constant(12_345_678_901_234_567_i64),
                ),
                LinCons::eq(&x(1), &x(2).scaled(&3.into())),
            ],
            Budget::unlimited(),
        );
        let mut text = format!("{HEADER}\n# a comment\n");
        text.push_str("op assign\n");
        write_poly(&mut text, &p);
        write_var(&mut text, Var(1));
        write_expr(&mut text, &x(0).plus(&LinExpr::constant(-2)));
        text.push_str("end\n\nop forget\npoly 3 bottom\n");
        write_vars(&mut text, &[Var(0), Var(2)]);
        text.push_str("end\n");
        let ops = parse(&text).unwrap();
        let operand = Operand {
            dim: 3,
            cons: Some(p.to_cons_vec()),
        };
        assert_eq!(
            ops,
            vec![
                Recorded::Assign(operand, Var(1), x(0).plus(&LinExpr::constant(-2))),
                Recorded::Forget(Operand { dim: 3, cons: None }, vec![Var(0), Var(2)]),
            ]
        );
        let back = Polyhedron::from_cons(3, ops_cons(&ops[0]), Budget::unlimited());
        assert_eq!(back, p);
    }

    fn ops_cons(op: &Recorded) -> &[LinCons] {
        match op {
            Recorded::Assign(Operand { cons: Some(c), .. }, ..) => c,
            _ => &[],
        }
    }

    #[test]
    fn malformed_traces_name_the_line() {
        let e = parse(&format!("{HEADER}\nop join\npoly 2 1\nge 1 0:x\n")).unwrap_err();
        assert_eq!(e.line, 4);
        assert!(parse("not a trace\n").is_err());
        assert!(parse(&format!("{HEADER}\nop frobnicate\n")).is_err());
        assert_eq!(parse("").unwrap(), vec![]);
    }
}
