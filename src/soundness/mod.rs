//! The differential soundness harness: random UB-free C programs, the native execution as
//! the oracle, and every verdict of `polyfocus check` compared with it.
//!
//! **Architecture Invariant:** like [`crate::bench`], the harness knows the analyzer only
//! through its command line and its JSON report, run as a child process; it never calls
//! the analysis in-process, and the oracle never uses the analyzer's own replay runtime
//! (`runtime/replay.c`): an oracle that shared code with what it checks would share its bugs.
//!
//! A program is a [`Skeleton`]: C lines shared by every rendering, plus *probes* (a value
//! of a typed expression at a program point) and *inputs* (a nondet value of a small
//! range). The pipeline of one program ([`run`]):
//!
//! 1. a generator ([`own`], [`calls`], [`memory`] or [`csmith`]) writes the skeleton;
//! 2. the oracle ([`oracle`]) compiles it natively with `-fsanitize=undefined` (trapping)
//!    with each probe rendered as a report of its value, and runs it for *every* valuation
//!    of the inputs (depth-first over the input sequence, one `fork` per valuation);
//! 3. [`assertions`] turns each probe into an assertion on the values observed: one that
//!    holds in every run, or (sometimes) one that fails in some run;
//! 4. the oracle runs the assertion program for every valuation again and records which
//!    assertions fail (an execution stops at its first failed assertion, as for the
//!    analyzer, whose error sites end paths) and, for a program with memory errors
//!    ([`Skeleton::record_memory_errors`]), the first memory error of each execution as the
//!    address sanitizer reports it (kind and line);
//! 5. `polyfocus check --format json` analyzes the same program (as the user would write
//!    it: `__VERIFIER_assert`, `assert`, `reach_error`, nondet functions and
//!    `__VERIFIER_assume`), [`report`] reads its checks, and [`judge`] compares each
//!    assertion check, located by its line, with the oracle: `proved` on an assertion that
//!    fails natively, `violated` on one that never fails, or a natively failing assertion
//!    without any check while the analyzer answered, is a wrong verdict; [`memory_judge`]
//!    does the same for the checks of memory kinds (`bounds`, `null`, `free`) against the
//!    memory errors;
//! 6. a check answered `holds if P` ([`report::Verdict::HoldsIf`]) is judged by one more
//!    native run ([`precondition`]) in which the entry of its function evaluates `P` on the
//!    actual arguments: a failure while `P` held is a wrong verdict.
//!
//! Programs with undefined behaviour (a sanitizer trap), a native timeout or too many input
//! valuations are rejected (counted, never judged). Everything is deterministic for a seed.

pub mod assertions;
pub mod calls;
pub mod csmith;
pub mod judge;
pub mod memory;
pub mod memory_judge;
pub mod oracle;
pub mod own;
pub mod precondition;
pub mod render;
pub mod report;
pub mod rng;
pub mod run;

use std::fmt;

/// An integer C type of the generated programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CType {
    /// `_Bool`.
    Bool,
    /// `signed char`.
    I8,
    /// `unsigned char`.
    U8,
    /// `short`.
    I16,
    /// `unsigned short`.
    U16,
    /// `int`.
    I32,
    /// `unsigned int`.
    U32,
    /// `long long`.
    I64,
    /// `unsigned long long`.
    U64,
}

impl CType {
    /// Every type, for random choice.
    pub const ALL: [CType; 9] = [
        CType::Bool,
        CType::I8,
        CType::U8,
        CType::I16,
        CType::U16,
        CType::I32,
        CType::U32,
        CType::I64,
        CType::U64,
    ];

    /// The C spelling.
    pub fn c_name(self) -> &'static str {
        match self {
            CType::Bool => "_Bool",
            CType::I8 => "signed char",
            CType::U8 => "unsigned char",
            CType::I16 => "short",
            CType::U16 => "unsigned short",
            CType::I32 => "int",
            CType::U32 => "unsigned int",
            CType::I64 => "long long",
            CType::U64 => "unsigned long long",
        }
    }

    /// Width in bits.
    pub fn width(self) -> u32 {
        match self {
            CType::Bool => 1,
            CType::I8 | CType::U8 => 8,
            CType::I16 | CType::U16 => 16,
            CType::I32 | CType::U32 => 32,
            CType::I64 | CType::U64 => 64,
        }
    }

    /// Whether the type is signed.
    pub fn is_signed(self) -> bool {
        matches!(self, CType::I8 | CType::I16 | CType::I32 | CType::I64)
    }

    /// Whether the integer promotions turn it into `int` (so `+`, `-` cannot overflow).
    pub fn promotes_to_int(self) -> bool {
        self.width() <= 16
    }

    /// The smallest value.
    pub fn lowest(self) -> i128 {
        if self.is_signed() {
            -(1i128 << (self.width() - 1))
        } else {
            0
        }
    }

    /// The largest value.
    pub fn highest(self) -> i128 {
        if self.is_signed() {
            (1i128 << (self.width() - 1)) - 1
        } else {
            (1i128 << self.width()) - 1
        }
    }

    /// The value of `bits` (the low `width` bits of a 64-bit report) read in this type.
    pub fn value_of_bits(self, bits: u64) -> i128 {
        let w = self.width();
        let masked = if w == 64 {
            bits as u128
        } else {
            (bits as u128) & ((1u128 << w) - 1)
        };
        if self.is_signed() && masked >> (w - 1) & 1 == 1 {
            masked as i128 - (1i128 << w)
        } else {
            masked as i128
        }
    }

    /// A C expression of this type with value `value` (which must be in range).
    pub fn literal(self, value: i128) -> String {
        debug_assert!(
            self.lowest() <= value && value <= self.highest(),
            "{value} out of {self}"
        );
        match self {
            CType::I64 if value == i64::MIN as i128 => "(-9223372036854775807LL - 1)".to_string(),
            CType::I64 => format!("{value}LL"),
            CType::U64 => format!("{value}ULL"),
            CType::U32 => format!("{value}U"),
            CType::I32 if value == i32::MIN as i128 => "(-2147483647 - 1)".to_string(),
            CType::I32 => format!("{value}"),
            _ => format!("(({}){value})", self.c_name()),
        }
    }
}

impl fmt::Display for CType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.c_name())
    }
}

/// One line of a program skeleton.
#[derive(Clone, Debug)]
pub enum Line {
    /// The same text in every rendering.
    Text(String),
    /// The first line of a function's definition, ending with `{`: the same text in every
    /// rendering, where the native check of a `holds if` precondition of `function`
    /// evaluates it on the arguments ([`precondition`]).
    Open {
        /// The header, `static int f(int x) {`.
        text: String,
        /// The function's name.
        function: String,
    },
    /// `TYPE NAME = <input in [lo, hi]>;` read with `nondet` (a `__VERIFIER_nondet_*`
    /// function of a type that holds the range) and restricted with `__VERIFIER_assume`
    /// unless the range is the whole type.
    Input {
        /// The declared variable.
        name: String,
        /// Its type.
        ty: CType,
        /// The nondet function the analyzed program calls.
        nondet: &'static str,
        /// Smallest value.
        lo: i128,
        /// Largest value.
        hi: i128,
    },
    /// An uninitialized declaration (`int x;` or `int a[4];`): in the oracle, each element
    /// gets a value of a small set, so the oracle is not exhaustive for such a program.
    Uninit {
        /// The declaration, without `;`.
        decl: String,
        /// The lvalues to fill in the oracle.
        cells: Vec<String>,
    },
    /// A probe: the value of `expr` (of type `ty`) here becomes an assertion.
    Probe {
        /// Unique per program; also the assertion's id.
        id: usize,
        /// A side-effect-free C expression.
        expr: String,
        /// Its type.
        ty: CType,
    },
}

/// How assertions are written in the analyzed program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssertStyle {
    /// `__VERIFIER_assert(c);` with the SV-COMP definitions of it and of `reach_error`.
    SvComp,
    /// `assert(c);` from `<assert.h>`.
    CAssert,
    /// `if (!(c)) reach_error();` with `reach_error` declared only.
    ReachError,
    /// `if (!(c)) reach_error();` with an empty definition of `reach_error` (the optimizer
    /// may delete its calls).
    EmptyReachError,
    /// `if (!(c)) report_error();` through a global function pointer to `reach_error`.
    ErrorThroughPointer,
}

/// A generated program before its assertions are chosen.
#[derive(Clone, Debug)]
pub struct Skeleton {
    /// The lines after the header of the rendering.
    pub lines: Vec<Line>,
    /// Headers every rendering needs (`#include`s), shared.
    pub includes: Vec<String>,
    /// How the analyzed program writes assertions.
    pub style: AssertStyle,
    /// Flags for every compilation, native and analyzed (`-I` ...).
    pub cflags: Vec<String>,
    /// Extra flags for the native oracle only (`-fsanitize=address` for the memory
    /// generator, so that an out-of-bounds access rejects the program).
    pub oracle_cflags: Vec<String>,
    /// Extra flags for the analyzer only (`-O2` ...).
    pub analysis_cflags: Vec<String>,
    /// The analyzer's `--checks`, when not its default (assertions only).
    pub analysis_checks: Option<&'static str>,
    /// Whether the program may have memory errors on purpose: the oracle then records the
    /// first memory error of each execution (the address sanitizer's kind and line) instead
    /// of rejecting the program, and checks of memory kinds are judged against them.
    pub record_memory_errors: bool,
    /// The program classes it exercises (for the report).
    pub classes: Vec<&'static str>,
}

impl Skeleton {
    /// Whether every execution the analyzer must consider is enumerated by the oracle
    /// (false with uninitialized memory: the oracle tries a few values only).
    pub fn exhaustive(&self) -> bool {
        !self.lines.iter().any(|l| matches!(l, Line::Uninit { .. }))
    }

    /// Number of probes.
    pub fn n_probes(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| matches!(l, Line::Probe { .. }))
            .count()
    }
}

/// Which generator writes the programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generator {
    /// Our own generator ([`own`]).
    Own,
    /// csmith, with options that keep programs small ([`csmith`]).
    Csmith,
    /// Our generator of programs that keep their data in memory ([`memory`]).
    Memory,
    /// The memory generator's programs with, sometimes, one memory error on some inputs
    /// ([`memory::generate_with_errors`]).
    MemoryErrors,
    /// Our generator of programs of many functions ([`calls`]).
    Calls,
}

impl Generator {
    /// The name on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            Generator::Own => "own",
            Generator::Csmith => "csmith",
            Generator::Memory => "memory",
            Generator::MemoryErrors => "memory-errors",
            Generator::Calls => "calls",
        }
    }
}

/// The optimization flags of a generated program's analysis: `-O1` one time in eight,
/// `-O2` `o2_eighths` times in eight, none otherwise; the class is recorded.
fn optimization_flags(
    rng: &mut rng::Rng,
    classes: &mut Vec<&'static str>,
    o2_eighths: usize,
) -> Vec<String> {
    match rng.below(8) {
        0 => {
            classes.push("O1");
            vec!["-O1".to_string()]
        }
        k if k <= o2_eighths => {
            classes.push("O2");
            vec!["-O2".to_string()]
        }
        _ => Vec::new(),
    }
}

/// Asserts that `generate` is deterministic (`seed` twice gives one program, `seed + 1`
/// another) and that over 200 seeds every class of `classes` shows up.
#[cfg(test)]
fn assert_deterministic_and_varied(
    generate: impl Fn(u64) -> Skeleton,
    seed: u64,
    classes: &[&str],
) {
    let text = |skeleton: &Skeleton| format!("{:?}", skeleton.lines);
    assert_eq!(text(&generate(seed)), text(&generate(seed)));
    assert_ne!(text(&generate(seed)), text(&generate(seed + 1)));
    let seen: Vec<&str> = (0..200).flat_map(|s| generate(s).classes).collect();
    for class in classes {
        assert!(seen.contains(class), "no program of class {class}");
    }
}
