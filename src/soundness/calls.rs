//! The calls generator: UB-free programs of several functions, for the analysis of calls
//! (summaries, calling contexts, preconditions). Helpers take `int` parameters, each with
//! a range its callers keep to; they are called from several sites (in `main`, in loops,
//! in other helpers) with arguments of different ranges, so that an assertion inside a
//! helper may hold for some callers and fail for one; some write an out-parameter
//! (`void f(int a, int *out)`, or `int f(int a, int *out)` that returns whether it wrote
//! it, and the caller reads it only then), some write globals, and their results decide
//! later conditions. Some are recursive (a count-down on a parameter bounded by the
//! arguments, with an accumulator or not, or two functions calling each other). A helper
//! is `static`, `static inline`, `noinline` or external, so that the analyzer inlines some
//! and keeps others as calls.
//!
//! Undefined behaviour is avoided by construction: the generator knows an interval of
//! every variable and expression (a parameter's is its range, which every call site's
//! argument keeps to by construction, clamping it if need be) and never writes an
//! operation whose interval leaves `[-LIMIT, LIMIT]`, far from `int`'s bounds; divisors
//! are positive constants; loops and recursion have small constant bounds. Parameters are
//! never assigned, so that a condition on them means the same at the entry and later.

use super::rng::Rng;
use super::{AssertStyle, CType, Line, Skeleton};

/// Most input valuations of a program (the oracle runs each).
const MAX_VALUATIONS: i128 = 64;

/// Every interval of the generated code lies within `[-LIMIT, LIMIT]`.
const LIMIT: i64 = 1 << 20;

/// Generates the program of `seed`.
pub fn generate(seed: u64) -> Skeleton {
    let mut gen = Gen {
        rng: Rng::new(seed ^ 0x6361_6c6c),
        lines: Vec::new(),
        next_id: 0,
        functions: Vec::new(),
        globals: Vec::new(),
        classes: Vec::new(),
    };
    gen.program()
}

/// An interval of `int` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Range {
    lo: i64,
    hi: i64,
}

impl Range {
    fn new(lo: i64, hi: i64) -> Range {
        debug_assert!(lo <= hi, "empty range [{lo}, {hi}]");
        Range { lo, hi }
    }

    fn point(v: i64) -> Range {
        Range::new(v, v)
    }

    fn join(self, other: Range) -> Range {
        Range::new(self.lo.min(other.lo), self.hi.max(other.hi))
    }

    fn contains(self, other: Range) -> bool {
        self.lo <= other.lo && other.hi <= self.hi
    }

    fn fits(self) -> bool {
        -LIMIT <= self.lo && self.hi <= LIMIT
    }

    fn add(self, other: Range) -> Range {
        Range::new(self.lo + other.lo, self.hi + other.hi)
    }

    fn sub(self, other: Range) -> Range {
        Range::new(self.lo - other.hi, self.hi - other.lo)
    }

    fn scale(self, k: i64) -> Range {
        if k >= 0 {
            Range::new(self.lo * k, self.hi * k)
        } else {
            Range::new(self.hi * k, self.lo * k)
        }
    }

    /// C's `/` by a positive constant (truncation toward zero, monotone).
    fn div(self, k: i64) -> Range {
        Range::new(self.lo / k, self.hi / k)
    }

    /// C's `%` by a positive constant (the sign of the dividend).
    fn rem(self, k: i64) -> Range {
        let lo = if self.lo < 0 {
            self.lo.max(-(k - 1))
        } else {
            0
        };
        let hi = if self.hi > 0 { self.hi.min(k - 1) } else { 0 };
        Range::new(lo, hi)
    }

    /// The values of `n` steps of `step` each, `n` in `0..=steps`.
    fn steps(self, steps: i64) -> Range {
        Range::new(steps * self.lo.min(0), steps * self.hi.max(0))
    }

    /// A value inside, near the middle more often than not.
    fn pick(self, rng: &mut Rng) -> i64 {
        if rng.chance(50) {
            let mid = self.lo + (self.hi - self.lo) / 2;
            rng.range(mid as i128 - 1, mid as i128 + 1)
                .clamp(self.lo as i128, self.hi as i128) as i64
        } else {
            rng.range(self.lo as i128, self.hi as i128) as i64
        }
    }
}

/// A variable in scope.
#[derive(Clone, Debug)]
struct Var {
    name: String,
    range: Range,
    /// Whether statements may assign it (never a parameter, nor, in a loop's body, a
    /// variable declared outside the loop).
    writable: bool,
}

/// A function the code after its definition may call.
#[derive(Clone, Debug)]
struct Function {
    name: String,
    /// The range of each `int` argument its callers pass.
    params: Vec<Range>,
    /// The range of its result (`None`: `void`).
    result: Option<Range>,
    /// With an out-parameter `int *out` after the `int`s: the range of what it stores
    /// (with a result too, the result is 1 when it stored, 0 when it did not).
    out: Option<Range>,
}

/// A global `int` and the range every store into it keeps to.
#[derive(Clone, Debug)]
struct Global {
    name: String,
    range: Range,
}

struct Gen {
    rng: Rng,
    lines: Vec<Line>,
    next_id: usize,
    functions: Vec<Function>,
    globals: Vec<Global>,
    classes: Vec<&'static str>,
}

/// Where statements are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    /// Nesting depth (1 in a function's body).
    indent: usize,
    /// Inside a loop's body.
    in_loop: bool,
}

impl Gen {
    fn program(&mut self) -> Skeleton {
        let style = *self.rng.pick(&[
            AssertStyle::SvComp,
            AssertStyle::SvComp,
            AssertStyle::CAssert,
            AssertStyle::ReachError,
        ]);
        let analysis_cflags = super::optimization_flags(&mut self.rng, &mut self.classes, 1);
        for _ in 0..self.rng.below(3) {
            self.global();
        }
        for _ in 0..2 + self.rng.below(4) {
            match self.rng.below(8) {
                0 => self.recursive(),
                1 | 2 => self.out_parameter_helper(),
                _ => self.helper(),
            }
        }
        self.main();
        self.classes.sort();
        self.classes.dedup();
        Skeleton {
            lines: std::mem::take(&mut self.lines),
            includes: Vec::new(),
            style,
            cflags: Vec::new(),
            oracle_cflags: Vec::new(),
            analysis_cflags,
            analysis_checks: None,
            record_memory_errors: false,
            classes: std::mem::take(&mut self.classes),
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}{}", self.next_id)
    }

    fn text(&mut self, indent: usize, text: String) {
        self.lines
            .push(Line::Text(format!("{}{text}", "  ".repeat(indent))));
    }

    fn open(&mut self, header: String, function: &str) {
        self.lines.push(Line::Open {
            text: format!("{header} {{"),
            function: function.to_string(),
        });
    }

    fn probe(&mut self, expr: String) {
        self.next_id += 1;
        self.lines.push(Line::Probe {
            id: self.next_id,
            expr,
            ty: CType::I32,
        });
    }

    fn global(&mut self) {
        self.classes.push("global");
        let name = self.fresh("g");
        let lo = self.rng.range(-20, 5) as i64;
        let range = Range::new(lo, lo + self.rng.range(3, 40) as i64);
        let init = range.pick(&mut self.rng);
        let linkage = if self.rng.chance(60) { "static " } else { "" };
        self.text(0, format!("{linkage}int {name} = {init};"));
        self.globals.push(Global { name, range });
    }

    /// The globals as variables a function reads (stores go through [`Gen::store_global`]).
    fn global_scope(&self) -> Vec<Var> {
        self.globals
            .iter()
            .map(|g| Var {
                name: g.name.clone(),
                range: g.range,
                writable: false,
            })
            .collect()
    }

    /// `static`, `static inline`, `noinline` or external: the analyzer inlines some.
    fn linkage(&mut self) -> &'static str {
        let (class, linkage) = *self.rng.pick(&[
            ("call-static", "static "),
            ("call-inline", "static inline "),
            ("call-noinline", "static __attribute__((noinline)) "),
            ("call-noinline", "static __attribute__((noinline)) "),
            ("call-external", ""),
            ("call-external", "__attribute__((noinline)) "),
        ]);
        self.classes.push(class);
        linkage
    }

    /// The ranges of a new function's `int` parameters, and their scope.
    fn parameters(&mut self) -> (Vec<Range>, Vec<Var>) {
        let n = 1 + self.rng.below(3);
        let ranges: Vec<Range> = (0..n)
            .map(|_| {
                let lo = self.rng.range(-40, 0) as i64;
                Range::new(lo, self.rng.range(6, 60) as i64)
            })
            .collect();
        let mut scope = self.global_scope();
        for (k, range) in ranges.iter().enumerate() {
            scope.push(Var {
                name: format!("p{k}"),
                range: *range,
                writable: false,
            });
        }
        (ranges, scope)
    }

    fn declarations(params: &[Range]) -> Vec<String> {
        (0..params.len()).map(|k| format!("int p{k}")).collect()
    }

    /// A helper with a result: a few statements (probes of its parameters first, often:
    /// assertions whose truth depends on the callers), and a return.
    fn helper(&mut self) {
        let name = self.fresh("h");
        let linkage = self.linkage();
        let (params, mut scope) = self.parameters();
        let decls = Self::declarations(&params);
        self.open(format!("{linkage}int {name}({})", decls.join(", ")), &name);
        self.parameter_probe(&scope);
        let place = Place {
            indent: 1,
            in_loop: false,
        };
        for _ in 0..2 + self.rng.below(4) {
            self.statement(&mut scope, place);
        }
        let (e, result) = self.expr(&scope, 2);
        self.text(1, format!("return {e};"));
        self.text(0, "}".to_string());
        self.functions.push(Function {
            name,
            params,
            result: Some(result),
            out: None,
        });
    }

    /// A probe of a parameter (or of an expression of them) at a function's entry.
    fn parameter_probe(&mut self, scope: &[Var]) {
        if !self.rng.chance(70) {
            return;
        }
        let params: Vec<&Var> = scope.iter().filter(|v| v.name.starts_with('p')).collect();
        let p = self.rng.pick(&params).name.clone();
        self.classes.push("assert-on-parameter");
        self.probe(p);
    }

    /// A helper that stores through `int *out`: `void`, maybe leaving `*out` as it was, or
    /// returning whether it stored.
    fn out_parameter_helper(&mut self) {
        let name = self.fresh("put");
        let linkage = self.linkage();
        let (params, mut scope) = self.parameters();
        let mut decls = Self::declarations(&params);
        decls.push("int *out".to_string());
        let status = self.rng.chance(50);
        let ret = if status { "int" } else { "void" };
        self.classes.push(if status {
            "out-parameter-status"
        } else {
            "out-parameter"
        });
        self.open(
            format!("{linkage}{ret} {name}({})", decls.join(", ")),
            &name,
        );
        self.parameter_probe(&scope);
        let guard = self.condition(&scope);
        if status {
            self.text(1, format!("if ({guard}) return 0;"));
        }
        let place = Place {
            indent: 1,
            in_loop: false,
        };
        for _ in 0..1 + self.rng.below(3) {
            self.statement(&mut scope, place);
        }
        let (e, out) = self.expr(&scope, 2);
        if !status && self.rng.chance(40) {
            let guard = self.condition(&scope);
            self.text(1, format!("if ({guard}) *out = {e};"));
        } else {
            self.text(1, format!("*out = {e};"));
            if self.rng.chance(40) {
                self.probe("*out".to_string());
            }
        }
        if status {
            self.text(1, "return 1;".to_string());
        }
        self.text(0, "}".to_string());
        self.functions.push(Function {
            name,
            params,
            result: status.then(|| Range::new(0, 1)),
            out: Some(out),
        });
    }

    /// A recursive function bounded by its first parameter's range.
    fn recursive(&mut self) {
        self.classes.push("recursion");
        let depth = self.rng.range(2, 6) as i64;
        let n = Range::new(self.rng.range(-3, 0) as i64, depth);
        match self.rng.below(3) {
            0 => {
                // Tail calls with an accumulator.
                self.classes.push("recursion-accumulator");
                let name = self.fresh("rec");
                let acc_lo = self.rng.range(-10, 5) as i64;
                let acc = Range::new(acc_lo, acc_lo + self.rng.range(0, 20) as i64);
                let (step_text, step) = self.step();
                let inside = acc.add(step.steps(depth));
                self.open(format!("static int {name}(int n, int acc)"), &name);
                let scope = [
                    Var {
                        name: "n".into(),
                        range: n,
                        writable: false,
                    },
                    Var {
                        name: "acc".into(),
                        range: inside,
                        writable: false,
                    },
                ];
                if self.rng.chance(60) {
                    let v = self.rng.pick(&scope).name.clone();
                    self.probe(v);
                }
                self.text(1, "if (n <= 0) return acc;".to_string());
                self.text(1, format!("return {name}(n - 1, acc + {step_text});"));
                self.text(0, "}".to_string());
                self.functions.push(Function {
                    name,
                    params: vec![n, acc],
                    result: Some(inside),
                    out: None,
                });
            }
            1 => {
                // The result of the inner call, then a step.
                self.classes.push("recursion-result");
                let name = self.fresh("rec");
                let base = self.rng.range(-5, 10) as i64;
                let (step_text, step) = self.step();
                let result = Range::point(base).add(step.steps(depth));
                let r = self.fresh("r");
                self.open(format!("static int {name}(int n)"), &name);
                self.text(1, format!("if (n <= 0) return {base};"));
                self.text(1, format!("int {r} = {name}(n - 1);"));
                if self.rng.chance(60) {
                    let v = if self.rng.chance(50) {
                        r.clone()
                    } else {
                        "n".to_string()
                    };
                    self.probe(v);
                }
                self.text(1, format!("return {r} + {step_text};"));
                self.text(0, "}".to_string());
                self.functions.push(Function {
                    name,
                    params: vec![n],
                    result: Some(result),
                    out: None,
                });
            }
            _ => {
                // Two functions calling each other: whether `n` is even.
                self.classes.push("mutual-recursion");
                let even = self.fresh("even");
                let odd = self.fresh("odd");
                self.text(0, format!("static int {odd}(int n);"));
                self.open(format!("static int {even}(int n)"), &even);
                if self.rng.chance(60) {
                    self.probe("n".to_string());
                }
                self.text(1, "if (n <= 0) return 1;".to_string());
                self.text(1, format!("return {odd}(n - 1);"));
                self.text(0, "}".to_string());
                self.open(format!("static int {odd}(int n)"), &odd);
                if self.rng.chance(40) {
                    self.probe("n".to_string());
                }
                self.text(1, "if (n <= 0) return 0;".to_string());
                self.text(1, format!("return {even}(n - 1);"));
                self.text(0, "}".to_string());
                for name in [even, odd] {
                    self.functions.push(Function {
                        name,
                        params: vec![n],
                        result: Some(Range::new(0, 1)),
                        out: None,
                    });
                }
            }
        }
    }

    /// A step of a recursion: an expression of `n` (in `1..`) and constants.
    fn step(&mut self) -> (String, Range) {
        let k = self.rng.range(-3, 5) as i64;
        match self.rng.below(3) {
            0 => (k.to_string(), Range::point(k)),
            1 => (
                format!("n * {}", k.abs().max(1)),
                Range::new(1, 6).scale(k.abs().max(1)),
            ),
            _ => (format!("(n % 3 + {k})"), Range::new(k, k + 2)),
        }
    }

    fn main(&mut self) {
        self.open("int main(void)".to_string(), "main");
        let mut scope = self.global_scope();
        let mut valuations = 1i128;
        for _ in 0..1 + self.rng.below(3) {
            let size = 2 + self.rng.below(5) as i128;
            if valuations * size > MAX_VALUATIONS {
                break;
            }
            valuations *= size;
            let name = self.fresh("in");
            let lo = self.rng.range(-6, 6);
            self.lines.push(Line::Input {
                name: name.clone(),
                ty: CType::I32,
                nondet: "__VERIFIER_nondet_int",
                lo,
                hi: lo + size - 1,
            });
            scope.push(Var {
                name,
                range: Range::new(lo as i64, (lo + size - 1) as i64),
                writable: false,
            });
        }
        let place = Place {
            indent: 1,
            in_loop: false,
        };
        for _ in 0..4 + self.rng.below(5) {
            self.statement(&mut scope, place);
        }
        // Every function is called from two sites of `main` at least.
        let functions = self.functions.clone();
        for f in &functions {
            for _ in 0..2 {
                self.call(&mut scope, place, f);
            }
        }
        for _ in 0..2 + self.rng.below(3) {
            let v = self.rng.pick(&scope).name.clone();
            self.probe(v);
        }
        self.text(1, "return 0;".to_string());
        self.text(0, "}".to_string());
    }

    fn statement(&mut self, scope: &mut Vec<Var>, place: Place) {
        let nested = place.indent < 3;
        match self.rng.below(11) {
            0 | 1 => self.local(scope, place),
            2 if !place.in_loop => self.assign(scope, place),
            3 => self.probe_in(scope),
            4..=6 if !self.functions.is_empty() => {
                let f = self.rng.pick(&self.functions).clone();
                self.call(scope, place, &f);
            }
            7 if nested => self.branch(scope, place),
            8 if nested && !place.in_loop => self.repeat(scope, place),
            9 if !self.globals.is_empty() => self.store_global(scope, place),
            _ => self.local(scope, place),
        }
    }

    fn local(&mut self, scope: &mut Vec<Var>, place: Place) {
        let name = self.fresh("t");
        let (e, range) = self.expr(scope, 2);
        self.text(place.indent, format!("int {name} = {e};"));
        scope.push(Var {
            name,
            range,
            writable: true,
        });
    }

    fn assign(&mut self, scope: &mut [Var], place: Place) {
        let targets: Vec<usize> = (0..scope.len()).filter(|&k| scope[k].writable).collect();
        if targets.is_empty() {
            return;
        }
        let k = *self.rng.pick(&targets);
        let (e, range) = self.expr(scope, 2);
        self.text(place.indent, format!("{} = {e};", scope[k].name));
        // Joined with the old range: the store may be on one branch only.
        scope[k].range = scope[k].range.join(range);
    }

    fn probe_in(&mut self, scope: &[Var]) {
        if scope.is_empty() || self.rng.chance(25) {
            let (e, _) = self.expr(scope, 1);
            self.probe(e);
        } else {
            let v = self.rng.pick(scope).name.clone();
            self.probe(v);
        }
    }

    fn store_global(&mut self, scope: &[Var], place: Place) {
        self.classes.push("writes-global");
        let g = self.rng.pick(&self.globals).clone();
        let (e, range) = self.expr(scope, 1);
        let e = self.keep_within(e, range, g.range);
        self.text(place.indent, format!("{} = {e};", g.name));
    }

    /// `if (c) { ... } else { ... }`; the variables declared inside are dropped after.
    fn branch(&mut self, scope: &mut Vec<Var>, place: Place) {
        let cond = self.condition(scope);
        let inner = Place {
            indent: place.indent + 1,
            ..place
        };
        let outer = scope.len();
        self.text(place.indent, format!("if ({cond}) {{"));
        for _ in 0..1 + self.rng.below(2) {
            self.statement(scope, inner);
        }
        scope.truncate(outer);
        if self.rng.chance(50) {
            self.text(place.indent, "} else {".to_string());
            for _ in 0..1 + self.rng.below(2) {
                self.statement(scope, inner);
            }
            scope.truncate(outer);
        }
        self.text(place.indent, "}".to_string());
    }

    /// A bounded loop that accumulates into a new variable (often the results of a call
    /// whose arguments depend on the counter); nothing declared before it is assigned in it.
    fn repeat(&mut self, scope: &mut Vec<Var>, place: Place) {
        self.classes.push("loop");
        let i = self.fresh("i");
        let acc = self.fresh("acc");
        let bound = self.rng.range(1, 5) as i64;
        self.text(place.indent, format!("int {acc} = 0;"));
        self.text(
            place.indent,
            format!("for (int {i} = 0; {i} < {bound}; {i}++) {{"),
        );
        let mut inner: Vec<Var> = scope
            .iter()
            .map(|v| Var {
                writable: false,
                ..v.clone()
            })
            .collect();
        inner.push(Var {
            name: i,
            range: Range::new(0, bound - 1),
            writable: false,
        });
        let body = Place {
            indent: place.indent + 1,
            in_loop: true,
        };
        let callable: Vec<Function> = self
            .functions
            .iter()
            .filter(|f| f.result.is_some() && f.out.is_none())
            .cloned()
            .collect();
        let (e, step) = if !callable.is_empty() && self.rng.chance(70) {
            self.classes.push("call-in-loop");
            let f = self.rng.pick(&callable).clone();
            let args = self.arguments(&inner, &f.params);
            (
                format!("{}({})", f.name, args.join(", ")),
                f.result.unwrap_or(Range::point(0)),
            )
        } else {
            self.expr(&inner, 1)
        };
        if self.rng.chance(40) {
            self.statement(&mut inner, body);
        }
        let total = step.steps(bound);
        if total.fits() {
            self.text(body.indent, format!("{acc} = {acc} + {e};"));
        } else {
            self.text(body.indent, format!("{acc} = {acc} + 1;"));
        }
        self.text(place.indent, "}".to_string());
        scope.push(Var {
            name: acc,
            range: if total.fits() {
                total
            } else {
                Range::new(0, bound)
            },
            writable: true,
        });
    }

    /// A call of `f` and what its caller does with the result or the out-parameter.
    fn call(&mut self, scope: &mut Vec<Var>, place: Place, f: &Function) {
        let mut args = self.arguments(scope, &f.params);
        let indent = place.indent;
        match (f.result, f.out) {
            (Some(result), None) => {
                if self.rng.chance(30) && place.indent < 3 {
                    // The result decides a branch.
                    self.classes.push("result-in-condition");
                    let k = result.pick(&mut self.rng);
                    let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                    self.text(
                        indent,
                        format!("if ({}({}) {op} {k}) {{", f.name, args.join(", ")),
                    );
                    let outer = scope.len();
                    self.statement(
                        scope,
                        Place {
                            indent: indent + 1,
                            ..place
                        },
                    );
                    scope.truncate(outer);
                    self.text(indent, "}".to_string());
                } else {
                    let r = self.fresh("r");
                    self.text(
                        indent,
                        format!("int {r} = {}({});", f.name, args.join(", ")),
                    );
                    scope.push(Var {
                        name: r,
                        range: result,
                        writable: true,
                    });
                }
            }
            (None, Some(out)) => {
                let o = self.fresh("o");
                let init = self.rng.range(-5, 5) as i64;
                args.push(format!("&{o}"));
                self.text(indent, format!("int {o} = {init};"));
                self.text(indent, format!("{}({});", f.name, args.join(", ")));
                scope.push(Var {
                    name: o,
                    range: out.join(Range::point(init)),
                    writable: true,
                });
            }
            (Some(_), Some(out)) => {
                // Read only when written: uninitialized before, sometimes.
                let o = self.fresh("o");
                let s = self.fresh("s");
                args.push(format!("&{o}"));
                let initialized = self.rng.chance(50);
                if initialized {
                    let init = self.rng.range(-5, 5) as i64;
                    self.text(indent, format!("int {o} = {init};"));
                } else {
                    self.classes.push("out-parameter-read-when-written");
                    self.text(indent, format!("int {o};"));
                }
                self.text(
                    indent,
                    format!("int {s} = {}({});", f.name, args.join(", ")),
                );
                self.text(indent, format!("if ({s}) {{"));
                self.probe(o.clone());
                self.text(indent, "}".to_string());
                scope.push(Var {
                    name: s,
                    range: Range::new(0, 1),
                    writable: true,
                });
                if initialized {
                    scope.push(Var {
                        name: o,
                        range: out.join(Range::new(-5, 5)),
                        writable: true,
                    });
                }
            }
            (None, None) => {
                self.text(indent, format!("{}({});", f.name, args.join(", ")));
            }
        }
    }

    /// Arguments within `params`: an expression of the caller's scope, kept within the
    /// parameter's range when it could leave it.
    fn arguments(&mut self, scope: &[Var], params: &[Range]) -> Vec<String> {
        params
            .iter()
            .map(|&param| {
                let (e, range) = self.expr(scope, 1);
                self.keep_within(e, range, param)
            })
            .collect()
    }

    /// `e` (of `range`) as an expression within `target`: itself when it is, else clamped
    /// by comparisons, reduced by `%`, or a constant.
    fn keep_within(&mut self, e: String, range: Range, target: Range) -> String {
        if target.contains(range) {
            return e;
        }
        let (lo, hi) = (target.lo, target.hi);
        match self.rng.below(5) {
            0 | 1 | 2 => {
                self.classes.push("clamped-argument");
                format!("(({e}) < {lo} ? {lo} : ({e}) > {hi} ? {hi} : ({e}))")
            }
            3 if lo <= 0 && hi >= 0 => {
                let m = (-lo).min(hi) + 1;
                format!("(({e}) % {m})")
            }
            _ => target.pick(&mut self.rng).to_string(),
        }
    }

    /// A comparison of an expression with a constant inside its range (so that both
    /// outcomes may happen), sometimes two.
    fn condition(&mut self, scope: &[Var]) -> String {
        let one = |gen: &mut Gen| {
            let (e, range) = gen.expr(scope, 1);
            let k = range.pick(&mut gen.rng);
            let op = *gen.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
            format!("{e} {op} {k}")
        };
        let a = one(self);
        if self.rng.chance(25) {
            let b = one(self);
            let op = *self.rng.pick(&["&&", "||"]);
            format!("({a}) {op} ({b})")
        } else {
            a
        }
    }

    /// A side-effect-free `int` expression of `scope` and its range.
    fn expr(&mut self, scope: &[Var], depth: usize) -> (String, Range) {
        if depth == 0 || self.rng.chance(30) {
            return self.leaf(scope);
        }
        let (a, ra) = self.expr(scope, depth - 1);
        let (text, range) = match self.rng.below(9) {
            0 | 1 => {
                let (b, rb) = self.expr(scope, depth - 1);
                (format!("({a} + {b})"), ra.add(rb))
            }
            2 => {
                let (b, rb) = self.expr(scope, depth - 1);
                (format!("({a} - {b})"), ra.sub(rb))
            }
            3 => {
                let k = *self.rng.pick(&[2, 3, 5, -1, -2]);
                (format!("({a} * {k})"), ra.scale(k))
            }
            4 => {
                let k = *self.rng.pick(&[2, 3, 4, 7]);
                (format!("({a} / {k})"), ra.div(k))
            }
            5 => {
                let k = self.rng.range(2, 9) as i64;
                (format!("({a} % {k})"), ra.rem(k))
            }
            6 => {
                let (b, _) = self.expr(scope, depth - 1);
                let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                (format!("({a} {op} {b})"), Range::new(0, 1))
            }
            7 => {
                let (b, rb) = self.expr(scope, depth - 1);
                let (min, range) = if self.rng.chance(50) {
                    ("<", Range::new(ra.lo.min(rb.lo), ra.hi.min(rb.hi)))
                } else {
                    (">", Range::new(ra.lo.max(rb.lo), ra.hi.max(rb.hi)))
                };
                (format!("({a} {min} {b} ? {a} : {b})"), range)
            }
            _ => {
                let cond = self.condition(scope);
                let (b, rb) = self.expr(scope, depth - 1);
                (format!("({cond} ? {a} : {b})"), ra.join(rb))
            }
        };
        if range.fits() {
            (text, range)
        } else {
            (a, ra)
        }
    }

    fn leaf(&mut self, scope: &[Var]) -> (String, Range) {
        if scope.is_empty() || self.rng.chance(30) {
            let k = self.rng.range(-6, 12) as i64;
            return (k.to_string(), Range::point(k));
        }
        let v = self.rng.pick(scope);
        (v.name.clone(), v.range)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_deterministic_and_varied() {
        crate::soundness::assert_deterministic_and_varied(
            generate,
            5,
            &[
                "call-static",
                "call-inline",
                "call-noinline",
                "call-external",
                "assert-on-parameter",
                "out-parameter",
                "out-parameter-status",
                "out-parameter-read-when-written",
                "recursion-accumulator",
                "recursion-result",
                "mutual-recursion",
                "result-in-condition",
                "call-in-loop",
                "clamped-argument",
                "writes-global",
            ],
        );
    }

    #[test]
    fn ranges_follow_c() {
        assert_eq!(Range::new(-7, 9).rem(4), Range::new(-3, 3));
        assert_eq!(Range::new(2, 9).rem(4), Range::new(0, 3));
        assert_eq!(Range::new(-9, -2).div(4), Range::new(-2, 0));
        assert_eq!(Range::new(-2, 3).scale(-2), Range::new(-6, 4));
        assert_eq!(Range::new(-1, 2).steps(3), Range::new(-3, 6));
    }

    #[test]
    fn every_function_is_called_from_two_sites_at_least() {
        for seed in 0..50 {
            let skeleton = generate(seed);
            let lines: Vec<String> = skeleton
                .lines
                .iter()
                .filter_map(|l| match l {
                    Line::Text(t) => Some(t.clone()),
                    _ => None,
                })
                .collect();
            for f in skeleton.lines.iter().filter_map(|l| match l {
                Line::Open { function, .. } if function != "main" => Some(function),
                _ => None,
            }) {
                let sites = lines
                    .iter()
                    .filter(|l| l.contains(&format!("{f}(")))
                    .count();
                assert!(sites >= 2, "seed {seed}: {f} called from {sites} sites");
            }
        }
    }
}
