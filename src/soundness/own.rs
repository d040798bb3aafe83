//! Our own generator of UB-free C programs: every integer width signed and unsigned,
//! casts, bitwise operations and shifts, boolean conversions (`_Bool`, `!`, comparisons as
//! integers, constants on either side), bounded loops, switch, calls (recursive ones and
//! through function pointers), static and external globals, and the program shapes that
//! once hid wrong verdicts: functions whose address escapes (tables, `atexit` handlers with
//! assertions), uninitialized locals and arrays, `--cflags -O1/-O2`, error functions the
//! optimizer may delete or that are called through a pointer, a program's own definition
//! of `__VERIFIER_nondet_int`, `qsort` comparators, and `setjmp`/`longjmp`; and memory:
//! local arrays read and written at computed indices and filled in loops, structs and
//! their fields through a pointer, a pointer that may point to either of two variables
//! (aliasing), out-parameters, and functions that write through their pointer arguments in
//! a loop.
//!
//! Undefined behaviour is avoided by construction: arithmetic that could overflow is done
//! in an unsigned type (or on operands promoted to `int` that cannot overflow it, or on
//! operands reduced by `%` first), shift amounts are masked below the width of an unsigned
//! left operand, divisors are non-zero constants other than -1 or are guarded, and loops
//! have constant bounds. Conversions to signed types are implementation-defined (modulo on
//! x86), never undefined. The oracle compiles with the undefined-behaviour sanitizer anyway
//! and rejects a program that traps.

use super::rng::Rng;
use super::{AssertStyle, CType, Line, Skeleton};

/// Most input valuations of a program (the oracle runs each): a fixed limit on the native
/// runs one program of the harness costs.
const MAX_VALUATIONS: i128 = 96;

/// Generates the program of `seed`.
pub fn generate(seed: u64) -> Skeleton {
    let mut gen = Gen {
        rng: Rng::new(seed),
        lines: Vec::new(),
        next_id: 0,
        functions: Vec::new(),
        globals: Vec::new(),
        classes: Vec::new(),
        optimized: false,
        writers: Vec::new(),
    };
    gen.program()
}

#[derive(Clone, Debug)]
struct Var {
    /// An lvalue: a name or `name[k]`.
    name: String,
    ty: CType,
    writable: bool,
}

#[derive(Clone, Debug)]
struct Function {
    name: String,
    params: Vec<CType>,
    /// Called through this expression (a pointer or a table entry) instead of its name.
    callee: Option<String>,
    /// False for a `void` function.
    returns_value: bool,
}

struct Gen {
    rng: Rng,
    lines: Vec<Line>,
    next_id: usize,
    functions: Vec<Function>,
    globals: Vec<Var>,
    classes: Vec<&'static str>,
    /// Whether the analyzer compiles the program with -O1/-O2.
    optimized: bool,
    /// Functions that write through a pointer argument (see [`Writer`]).
    writers: Vec<Writer>,
}

/// A function that writes through its pointer argument: `void NAME(TY *p, ...)`.
#[derive(Clone, Debug)]
struct Writer {
    name: String,
    ty: CType,
    /// `NAME(TY *out, TY v)` stores one value; otherwise `NAME(TY *p, unsigned n, TY v)`
    /// stores into `p[0..min(n, len))`, so it needs an array of at least `len` elements.
    fill_len: Option<usize>,
    /// Called through a function pointer, so that it may stay a call.
    through_pointer: bool,
}

const ARITH: &[&str] = &["+", "-", "*"];
const BITWISE: &[&str] = &["&", "|", "^"];
const COMPARISONS: &[&str] = &["<", "<=", ">", ">=", "==", "!="];

impl Gen {
    fn program(&mut self) -> Skeleton {
        let style = *self.rng.pick(&[
            AssertStyle::SvComp,
            AssertStyle::SvComp,
            AssertStyle::CAssert,
            AssertStyle::ReachError,
            AssertStyle::ReachError,
            AssertStyle::EmptyReachError,
            AssertStyle::ErrorThroughPointer,
        ]);
        match style {
            AssertStyle::EmptyReachError => self.classes.push("empty-reach-error"),
            AssertStyle::ErrorThroughPointer => self.classes.push("error-through-pointer"),
            _ => {}
        }
        let mut includes = Vec::new();
        let analysis_cflags = super::optimization_flags(&mut self.rng, &mut self.classes, 2);
        self.optimized = !analysis_cflags.is_empty();
        let own_nondet = self.rng.chance(10);
        if own_nondet {
            self.classes.push("own-nondet");
            let k = self.rng.range(-3, 9);
            self.text(format!("int __VERIFIER_nondet_int(void) {{ return {k}; }}"));
        }
        self.globals_section();
        for _ in 0..self.rng.below(3) {
            self.helper();
        }
        if self.rng.chance(25) {
            self.recursive();
        }
        if self.rng.chance(30) {
            self.pointer_targets();
        }
        if self.rng.chance(35) {
            for _ in 0..1 + self.rng.below(2) {
                self.writer();
            }
        }
        let handler = self.rng.chance(15).then(|| self.atexit_handler());
        let comparator = self.rng.chance(12).then(|| self.comparator());
        if handler.is_some() || comparator.is_some() {
            includes.push("#include <stdlib.h>".to_string());
        }
        // Last, so that nothing runs it before `main` has called `setjmp`.
        let jump_buffer = self.rng.chance(12).then(|| self.jumper());
        if jump_buffer.is_some() {
            includes.push("#include <setjmp.h>".to_string());
        }
        self.main(
            own_nondet,
            handler.as_deref(),
            comparator.as_deref(),
            jump_buffer.as_deref(),
        );
        Skeleton {
            lines: std::mem::take(&mut self.lines),
            includes,
            style,
            cflags: Vec::new(),
            oracle_cflags: Vec::new(),
            analysis_cflags,
            analysis_checks: None,
            record_memory_errors: false,
            classes: std::mem::take(&mut self.classes),
        }
    }

    fn text(&mut self, text: String) {
        self.lines.push(Line::Text(text));
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}{}", self.next_id)
    }

    fn probe(&mut self, expr: String, ty: CType) {
        self.next_id += 1;
        self.lines.push(Line::Probe {
            id: self.next_id,
            expr,
            ty,
        });
    }

    fn any_type(&mut self) -> CType {
        *self.rng.pick(&CType::ALL)
    }

    /// A value of `ty` that is often a boundary.
    fn value(&mut self, ty: CType) -> i128 {
        match self.rng.below(8) {
            0 => 0,
            1 => 1,
            2 => ty.highest(),
            3 => ty.lowest(),
            4 if ty.is_signed() => -1,
            5 => ty.highest() - 1,
            6 => self.rng.range(ty.lowest().max(-10), ty.highest().min(10)),
            _ => self.rng.range(ty.lowest(), ty.highest()),
        }
    }

    fn globals_section(&mut self) {
        for _ in 0..1 + self.rng.below(4) {
            let ty = self.any_type();
            let name = self.fresh("g");
            let linkage = if self.rng.chance(50) { "static " } else { "" };
            if linkage.is_empty() && !self.classes.contains(&"external-global") {
                self.classes.push("external-global");
            }
            if self.rng.chance(20) {
                let len = 2 + self.rng.below(3);
                let init: Vec<String> = (0..len)
                    .map(|_| {
                        let v = self.value(ty);
                        ty.literal(v)
                    })
                    .collect();
                self.text(format!(
                    "{linkage}{ty} {name}[{len}] = {{{}}};",
                    init.join(", ")
                ));
                for k in 0..len {
                    self.globals.push(Var {
                        name: format!("{name}[{k}]"),
                        ty,
                        writable: true,
                    });
                }
            } else {
                let v = self.value(ty);
                self.text(format!("{linkage}{ty} {name} = {};", ty.literal(v)));
                self.globals.push(Var {
                    name,
                    ty,
                    writable: true,
                });
            }
        }
    }

    /// A small function with a few parameters, a probe and a return value.
    fn helper(&mut self) {
        let ret = self.any_type();
        let params: Vec<CType> = (0..1 + self.rng.below(3))
            .map(|_| self.any_type())
            .collect();
        let name = self.fresh("f");
        let linkage = if self.rng.chance(70) { "static " } else { "" };
        let mut scope = self.globals.clone();
        let decls: Vec<String> = params
            .iter()
            .enumerate()
            .map(|(k, ty)| {
                scope.push(Var {
                    name: format!("p{k}"),
                    ty: *ty,
                    writable: true,
                });
                format!("{ty} p{k}")
            })
            .collect();
        self.text(format!("{linkage}{ret} {name}({}) {{", decls.join(", ")));
        let n = 2 + self.rng.below(3);
        self.block(&mut scope, 1, n);
        let e = self.expr(&scope, ret, 2);
        self.text(format!("  return {e};"));
        self.text("}".to_string());
        self.functions.push(Function {
            name,
            params,
            callee: None,
            returns_value: true,
        });
    }

    /// `int recN(int n, int acc)`, recursive on `n` (called with `n` in 0..4).
    fn recursive(&mut self) {
        self.classes.push("recursion");
        let name = self.fresh("rec");
        let scope = {
            let mut s = self.globals.clone();
            s.push(Var {
                name: "n".into(),
                ty: CType::I32,
                writable: false,
            });
            s.push(Var {
                name: "acc".into(),
                ty: CType::I32,
                writable: false,
            });
            s
        };
        self.text(format!("static int {name}(int n, int acc) {{"));
        let base = self.expr(&scope, CType::I32, 1);
        self.text(format!("  if (n <= 0) return {base};"));
        let step = self.expr(&scope, CType::I32, 1);
        let combine = self.expr(&scope, CType::U32, 1);
        let op = *self.rng.pick(&["+", "^", "-"]);
        self.text(format!(
            "  return (int)((unsigned)({name}(n - 1, {step})) {op} {combine});"
        ));
        self.text("}".to_string());
        self.functions.push(Function {
            name: name.clone(),
            params: vec![CType::I32, CType::I32],
            callee: Some(format!("{name}_bounded")),
            returns_value: true,
        });
        // Callers go through a wrapper that bounds the depth.
        self.text(format!(
            "static int {name}_bounded(int n, int acc) {{ return {name}((int)((unsigned)n % 4U), acc); }}"
        ));
    }

    /// Two `int (int)` functions called through a pointer table (exported or not).
    fn pointer_targets(&mut self) {
        self.classes.push("function-pointer");
        let mut names = Vec::new();
        for _ in 0..2 {
            let name = self.fresh("fp");
            let mut scope = self.globals.clone();
            scope.push(Var {
                name: "x".into(),
                ty: CType::I32,
                writable: true,
            });
            self.text(format!("static int {name}(int x) {{"));
            let n = 1 + self.rng.below(2);
            self.block(&mut scope, 1, n);
            let e = self.expr(&scope, CType::I32, 2);
            self.text(format!("  return {e};"));
            self.text("}".to_string());
            names.push(name);
        }
        let table = self.fresh("table");
        let exported = self.rng.chance(50);
        if exported {
            self.classes.push("escaping-table");
        }
        self.text(format!(
            "{}int (*{}{table}[2])(int) = {{{}, {}}};",
            if exported { "" } else { "static " },
            if exported { "" } else { "const " },
            names[0],
            names[1]
        ));
        // The callee expression takes the selector as its first argument (see `call`).
        self.functions.push(Function {
            name: table.clone(),
            params: vec![CType::U32, CType::I32],
            callee: Some(format!("TABLE:{table}")),
            returns_value: true,
        });
    }

    /// A handler registered with `atexit` whose statements and probes see the globals.
    fn atexit_handler(&mut self) -> String {
        self.classes.push("atexit");
        let name = self.fresh("at_exit");
        self.text(format!("static void {name}(void) {{"));
        let mut scope = self.globals.clone();
        let n = 1 + self.rng.below(2);
        self.block(&mut scope, 1, n);
        self.probe_some(&scope, 2);
        self.text("}".to_string());
        name
    }

    /// A `qsort` comparator of `int`s, with probes (code called only by the C library).
    fn comparator(&mut self) -> String {
        self.classes.push("qsort-comparator");
        let name = self.fresh("cmp");
        self.text(format!(
            "static int {name}(const void *a, const void *b) {{"
        ));
        self.text("  int x = *(const int *)a, y = *(const int *)b;".to_string());
        let scope: Vec<Var> = ["x", "y"]
            .iter()
            .map(|n| Var {
                name: n.to_string(),
                ty: CType::I32,
                writable: false,
            })
            .chain(self.globals.iter().cloned())
            .collect();
        self.probe_some(&scope, 2);
        self.text("  return (x > y) - (x < y);".to_string());
        self.text("}".to_string());
        name
    }

    /// A `void` function that may `longjmp` back to the `setjmp` at the start of `main`
    /// (a function that returns twice). Only globals are read after the
    /// jump, so no local's value is indeterminate.
    fn jumper(&mut self) -> String {
        self.classes.push("setjmp");
        let buffer = self.fresh("jb");
        let name = self.fresh("jump");
        self.text(format!("static jmp_buf {buffer};"));
        self.text(format!("static void {name}(int x) {{"));
        let mut scope = self.globals.clone();
        scope.push(Var {
            name: "x".into(),
            ty: CType::I32,
            writable: true,
        });
        let n = 1 + self.rng.below(2);
        self.block(&mut scope, 1, n);
        let cond = self.condition(&scope);
        self.text(format!("  if ({cond}) longjmp({buffer}, 1);"));
        self.text("}".to_string());
        self.functions.push(Function {
            name,
            params: vec![CType::I32],
            callee: None,
            returns_value: false,
        });
        buffer
    }

    /// A function that writes through its pointer argument (an out-parameter, or a loop
    /// filling a prefix of an array), sometimes called through a pointer.
    fn writer(&mut self) {
        self.classes.push("writes-through-argument");
        let ty = *self
            .rng
            .pick(&[CType::I32, CType::U32, CType::I16, CType::U8, CType::I64]);
        let name = self.fresh("put");
        let v = Var {
            name: "v".into(),
            ty,
            writable: false,
        };
        let fill_len = self.rng.chance(50).then(|| 2 + self.rng.below(3));
        match fill_len {
            None => {
                self.text(format!("static void {name}({ty} *out, {ty} v) {{"));
                let mut scope = vec![v];
                scope.extend(self.globals.iter().cloned());
                let cond = self.condition(&scope);
                let e = self.expr(&scope, ty, 2);
                // Sometimes the out-parameter is left as it was.
                self.text(format!("  if ({cond}) *out = {e};"));
            }
            Some(len) => {
                self.text(format!(
                    "static void {name}({ty} *p, unsigned n, {ty} v) {{"
                ));
                self.text(format!(
                    "  for (unsigned i = 0; i < n && i < {len}U; i++) p[i] = ({ty})((unsigned long long)v + i * 3U);"
                ));
            }
        }
        self.text("}".to_string());
        let through_pointer = self.rng.chance(30);
        if through_pointer {
            let params = match fill_len {
                None => format!("{ty} *, {ty}"),
                Some(_) => format!("{ty} *, unsigned, {ty}"),
            };
            self.text(format!(
                "static void (*volatile {name}_ptr)({params}) = {name};"
            ));
        }
        self.writers.push(Writer {
            name,
            ty,
            fill_len,
            through_pointer,
        });
    }

    /// Memory in `main`: arrays, structs, pointers, aliasing, out-parameters.
    /// Every object is initialized and every index is reduced below its array's length, so
    /// no access is undefined.
    fn memory(&mut self, scope: &mut Vec<Var>) {
        let mut arrays: Vec<(String, CType, usize)> = Vec::new();
        // Local arrays, some filled in a loop, read and written at computed indices.
        for _ in 0..1 + self.rng.below(2) {
            self.classes.push("array");
            let ty = *self
                .rng
                .pick(&[CType::I32, CType::U32, CType::I16, CType::U8, CType::I64]);
            let len = 2 + self.rng.below(4);
            let name = self.fresh("a");
            let init: Vec<String> = (0..len).map(|_| self.expr(scope, ty, 1)).collect();
            self.text(format!("  {ty} {name}[{len}] = {{{}}};", init.join(", ")));
            if self.rng.chance(50) {
                self.classes.push("array-loop");
                let e = self.expr(scope, CType::U32, 1);
                let via_pointer = self.rng.chance(50);
                if via_pointer {
                    // Writes through a pointer that walks the array.
                    let q = self.fresh("q");
                    self.text(format!("  {ty} *{q} = {name};"));
                    self.text(format!(
                        "  for (int i = 0; i < {len}; i++) {{ *{q} = ({ty})((unsigned)({e}) + (unsigned)i); {q}++; }}"
                    ));
                } else {
                    self.text(format!(
                        "  for (int i = 0; i < {len}; i++) {name}[i] = ({ty})((unsigned)({e}) * (unsigned)i);"
                    ));
                }
            }
            if self.rng.chance(50) {
                // A prefix of computed length filled with a constant, then maybe rewritten
                // (`a[i] = a[i] + d`) over another prefix: the memory model's segments.
                self.classes.push("array-init-loop");
                let c = self.rng.below(7) as i64 - 2;
                let n1 = self.expr(scope, CType::U32, 1);
                self.text(format!(
                    "  for (unsigned i = 0; i < (unsigned)({n1}) % {}U; i++) {name}[i] = ({ty})({c});",
                    len + 1
                ));
                if self.rng.chance(50) {
                    let d = 1 + self.rng.below(3);
                    let n2 = self.expr(scope, CType::U32, 1);
                    self.text(format!(
                        "  for (unsigned i = 0; i < (unsigned)({n2}) % {}U; i++) {name}[i] = ({ty})((unsigned long long){name}[i] + {d}ULL);",
                        len + 1
                    ));
                }
            }
            for k in 0..len {
                scope.push(Var {
                    name: format!("{name}[{k}]"),
                    ty,
                    writable: true,
                });
            }
            // A computed index: its variables are in scope for as long as this lvalue is.
            let idx = self.expr(scope, CType::U32, 1);
            scope.push(Var {
                name: format!("{name}[(unsigned)({idx}) % {len}U]"),
                ty,
                writable: true,
            });
            arrays.push((name, ty, len));
        }
        // A struct, its fields also written through a pointer to it.
        if self.rng.chance(50) {
            self.classes.push("struct");
            let tag = self.fresh("S");
            let types: Vec<CType> = (0..2 + self.rng.below(2))
                .map(|_| {
                    *self
                        .rng
                        .pick(&[CType::I32, CType::U8, CType::I64, CType::U16, CType::I8])
                })
                .collect();
            let fields: Vec<String> = types
                .iter()
                .enumerate()
                .map(|(k, ty)| format!("{ty} f{k};"))
                .collect();
            self.text(format!("  struct {tag} {{ {} }};", fields.join(" ")));
            let name = self.fresh("s");
            let init: Vec<String> = types.iter().map(|ty| self.expr(scope, *ty, 1)).collect();
            self.text(format!("  struct {tag} {name} = {{{}}};", init.join(", ")));
            let ptr = self.fresh("ps");
            self.text(format!("  struct {tag} *{ptr} = &{name};"));
            for (k, ty) in types.iter().enumerate() {
                scope.push(Var {
                    name: format!("{name}.f{k}"),
                    ty: *ty,
                    writable: true,
                });
                scope.push(Var {
                    name: format!("{ptr}->f{k}"),
                    ty: *ty,
                    writable: true,
                });
            }
        }
        // A pointer to either of two objects of one type (aliasing).
        let plain: Vec<Var> = scope
            .iter()
            .filter(|v| v.writable && !v.name.contains('(') && !v.name.contains("->"))
            .cloned()
            .collect();
        if !plain.is_empty() && self.rng.chance(70) {
            self.classes.push("pointer-alias");
            let x = self.rng.pick(&plain).clone();
            let same: Vec<Var> = plain.iter().filter(|v| v.ty == x.ty).cloned().collect();
            let y = self.rng.pick(&same).clone();
            let cond = self.condition(scope);
            let p = self.fresh("p");
            let ty = x.ty;
            self.text(format!(
                "  {ty} *{p} = ({cond}) ? &{} : &{};",
                x.name, y.name
            ));
            let e = self.expr(scope, ty, 2);
            self.text(format!("  *{p} = {e};"));
            scope.push(Var {
                name: format!("(*{p})"),
                ty,
                writable: true,
            });
        }
        // Calls that write through their arguments.
        for w in self.writers.clone() {
            let callee = if w.through_pointer {
                format!("{}_ptr", w.name)
            } else {
                w.name.clone()
            };
            match w.fill_len {
                None => {
                    let targets: Vec<Var> = scope
                        .iter()
                        .filter(|v| v.writable && v.ty == w.ty)
                        .cloned()
                        .collect();
                    if targets.is_empty() {
                        continue;
                    }
                    self.classes.push("out-parameter");
                    let t = self.rng.pick(&targets).clone();
                    let e = self.expr(scope, w.ty, 1);
                    self.text(format!("  {callee}(&{}, {e});", t.name));
                }
                Some(len) => {
                    let fits: Vec<&(String, CType, usize)> = arrays
                        .iter()
                        .filter(|(_, ty, n)| *ty == w.ty && *n >= len)
                        .collect();
                    let Some((array, _, _)) = fits.first().map(|a| (*a).clone()) else {
                        continue;
                    };
                    self.classes.push("fill-through-argument");
                    let n = self.expr(scope, CType::U32, 1);
                    let e = self.expr(scope, w.ty, 1);
                    self.text(format!(
                        "  {callee}({array}, (unsigned)({n}) % {}U, {e});",
                        len + 1
                    ));
                }
            }
        }
    }

    fn main(
        &mut self,
        own_nondet: bool,
        handler: Option<&str>,
        comparator: Option<&str>,
        jump_buffer: Option<&str>,
    ) {
        self.text("int main(void) {".to_string());
        let mut scope = self.globals.clone();
        if let Some(handler) = handler {
            self.text(format!("  atexit({handler});"));
        }
        self.inputs(&mut scope, own_nondet);
        if own_nondet {
            let name = self.fresh("k");
            self.text(format!("  int {name} = __VERIFIER_nondet_int();"));
            scope.push(Var {
                name,
                ty: CType::I32,
                writable: true,
            });
        }
        // Not with optimization: clang takes a branch on an uninitialized value as
        // undefined behaviour and deletes what follows, so the program compiled with -O2
        // no longer does what the -O0 oracle runs.
        if !self.optimized && self.rng.chance(20) {
            self.uninitialized(&mut scope);
        }
        for _ in 0..1 + self.rng.below(3) {
            self.local(&mut scope, 1);
        }
        if let Some(comparator) = comparator {
            let array = self.fresh("qa");
            let init: Vec<String> = (0..3).map(|_| self.expr(&scope, CType::I32, 1)).collect();
            self.text(format!("  int {array}[3] = {{{}}};", init.join(", ")));
            self.text(format!(
                "  qsort({array}, 3, sizeof {array}[0], {comparator});"
            ));
            for k in 0..3 {
                scope.push(Var {
                    name: format!("{array}[{k}]"),
                    ty: CType::I32,
                    writable: true,
                });
            }
        }
        if !self.writers.is_empty() || self.rng.chance(35) {
            self.memory(&mut scope);
        }
        if let Some(buffer) = jump_buffer {
            self.text(format!("  if (setjmp({buffer}) != 0) {{"));
            let globals = self.globals.clone();
            self.probe_some(&globals, 2);
            self.text("    return 0;".to_string());
            self.text("  }".to_string());
        }
        let n = 3 + self.rng.below(5);
        self.block(&mut scope, 1, n);
        self.probe_some(&scope, 3);
        self.text("  return 0;".to_string());
        self.text("}".to_string());
    }

    /// Nondet inputs of small ranges, at most [`MAX_VALUATIONS`] valuations in all.
    fn inputs(&mut self, scope: &mut Vec<Var>, own_nondet: bool) {
        let mut valuations = 1i128;
        for _ in 0..self.rng.below(5) {
            let (ty, nondet) = *self.rng.pick(&[
                (CType::Bool, "__VERIFIER_nondet_bool"),
                (CType::Bool, "__VERIFIER_nondet_bool"),
                (CType::I8, "__VERIFIER_nondet_char"),
                (CType::U8, "__VERIFIER_nondet_uchar"),
                (CType::I16, "__VERIFIER_nondet_short"),
                (CType::I32, "__VERIFIER_nondet_int"),
                (CType::U32, "__VERIFIER_nondet_uint"),
            ]);
            if own_nondet && nondet == "__VERIFIER_nondet_int" {
                continue;
            }
            let size = if ty == CType::Bool {
                2
            } else {
                1 + self.rng.below(5) as i128
            };
            if valuations * size > MAX_VALUATIONS {
                break;
            }
            valuations *= size;
            let lo = match self.rng.below(3) {
                0 => ty.lowest(),
                1 => ty.highest() - size + 1,
                _ => self
                    .rng
                    .range(ty.lowest().max(-8), (ty.highest() - size + 1).min(8)),
            };
            let name = self.fresh("in");
            self.lines.push(Line::Input {
                name: name.clone(),
                ty,
                nondet,
                lo,
                hi: lo + size - 1,
            });
            scope.push(Var {
                name,
                ty,
                writable: true,
            });
        }
    }

    /// An uninitialized scalar or an array initialized on some paths only.
    fn uninitialized(&mut self, scope: &mut Vec<Var>) {
        self.classes.push("uninitialized");
        let ty = *self
            .rng
            .pick(&[CType::I32, CType::U8, CType::I16, CType::U32]);
        let name = self.fresh("u");
        if self.rng.chance(50) {
            self.lines.push(Line::Uninit {
                decl: format!("  {ty} {name}"),
                cells: vec![name.clone()],
            });
            scope.push(Var {
                name,
                ty,
                writable: true,
            });
        } else {
            let len = 2 + self.rng.below(2);
            let cells: Vec<String> = (0..len).map(|k| format!("{name}[{k}]")).collect();
            self.lines.push(Line::Uninit {
                decl: format!("  {ty} {name}[{len}]"),
                cells: cells.clone(),
            });
            // Some cells written on some paths.
            let cond = self.expr(scope, CType::Bool, 1);
            let e = self.expr(scope, ty, 1);
            self.text(format!("  if ({cond}) {} = {e};", cells[0]));
            for cell in cells {
                scope.push(Var {
                    name: cell,
                    ty,
                    writable: true,
                });
            }
        }
    }

    fn local(&mut self, scope: &mut Vec<Var>, indent: usize) {
        let ty = self.any_type();
        let name = self.fresh("v");
        let e = self.expr(scope, ty, 2);
        self.text(format!("{}{ty} {name} = {e};", pad(indent)));
        scope.push(Var {
            name,
            ty,
            writable: true,
        });
    }

    fn probe_some(&mut self, scope: &[Var], most: usize) {
        for _ in 0..1 + self.rng.below(most) {
            if self.rng.chance(75) {
                let var = self.rng.pick(scope).clone();
                self.probe(var.name, var.ty);
            } else {
                let ty = self.any_type();
                let e = self.expr(scope, ty, 1);
                self.probe(e, ty);
            }
        }
    }

    /// `count` statements; variables declared inside are dropped at the end.
    fn block(&mut self, scope: &mut Vec<Var>, indent: usize, count: usize) {
        let outer = scope.len();
        for _ in 0..count {
            self.statement(scope, indent);
        }
        scope.truncate(outer);
    }

    fn statement(&mut self, scope: &mut Vec<Var>, indent: usize) {
        let nested = indent < 3;
        let p = pad(indent);
        match self.rng.below(12) {
            0 | 1 => self.assign(scope, indent),
            2 => self.local(scope, indent),
            3 | 4 => self.probe_some(scope, 1),
            5 if nested => {
                let cond = self.condition(scope);
                self.text(format!("{p}if ({cond}) {{"));
                let n = 1 + self.rng.below(2);
                self.block(scope, indent + 1, n);
                if self.rng.chance(50) {
                    self.text(format!("{p}}} else {{"));
                    let n = 1 + self.rng.below(2);
                    self.block(scope, indent + 1, n);
                }
                self.text(format!("{p}}}"));
            }
            6 if nested => {
                let i = self.fresh("i");
                let bound = if self.rng.chance(60) {
                    format!("{}", 1 + self.rng.below(6))
                } else {
                    let e = self.expr(scope, CType::U32, 1);
                    format!("(int)((unsigned)({e}) % 5U)")
                };
                self.text(format!("{p}for (int {i} = 0; {i} < {bound}; {i}++) {{"));
                scope.push(Var {
                    name: i,
                    ty: CType::I32,
                    writable: false,
                });
                let n = 1 + self.rng.below(3);
                self.block(scope, indent + 1, n);
                scope.pop();
                self.text(format!("{p}}}"));
            }
            7 if nested => {
                let w = self.fresh("w");
                let cond = self.condition(scope);
                self.text(format!("{p}unsigned {w} = 0;"));
                let bound = 1 + self.rng.below(5);
                self.text(format!("{p}while ({w} < {bound}U && ({cond})) {{"));
                self.text(format!("{}{w}++;", pad(indent + 1)));
                let n = 1 + self.rng.below(2);
                self.block(scope, indent + 1, n);
                self.text(format!("{p}}}"));
            }
            8 if nested => {
                let e = self.expr(scope, CType::U32, 1);
                self.text(format!("{p}switch ((int)((unsigned)({e}) % 4U)) {{"));
                for case in ["case 0:", "case 1:", "case 2:", "default:"] {
                    self.text(format!("{p}{case}"));
                    self.block(scope, indent + 1, 1);
                    if self.rng.chance(70) {
                        self.text(format!("{}break;", pad(indent + 1)));
                    }
                }
                self.text(format!("{p}}}"));
            }
            9 | 10 if !self.functions.is_empty() => self.call(scope, indent),
            _ => self.assign(scope, indent),
        }
    }

    fn assign(&mut self, scope: &mut [Var], indent: usize) {
        let targets: Vec<Var> = scope.iter().filter(|v| v.writable).cloned().collect();
        if targets.is_empty() {
            return;
        }
        let target = self.rng.pick(&targets).clone();
        let e = self.expr(scope, target.ty, 2);
        let p = pad(indent);
        // Compound assignments where they cannot overflow a signed type.
        let op = if !target.ty.is_signed() && self.rng.chance(30) {
            format!("{}=", self.rng.pick(&["+", "-", "^", "|", "&"]))
        } else {
            "=".to_string()
        };
        self.text(format!("{p}{} {op} {e};", target.name));
    }

    fn call(&mut self, scope: &mut [Var], indent: usize) {
        let function = self.rng.pick(&self.functions).clone();
        let targets: Vec<Var> = scope.iter().filter(|v| v.writable).cloned().collect();
        let args: Vec<String> = function
            .params
            .iter()
            .map(|ty| self.expr(scope, *ty, 1))
            .collect();
        let call = match function.callee.as_deref() {
            Some(table) if table.starts_with("TABLE:") => format!(
                "{}[(unsigned)({}) % 2U]({})",
                &table["TABLE:".len()..],
                args[0],
                args[1]
            ),
            Some(wrapper) => format!("{wrapper}({})", args.join(", ")),
            None => format!("{}({})", function.name, args.join(", ")),
        };
        let p = pad(indent);
        if !function.returns_value {
            self.text(format!("{p}{call};"));
        } else if targets.is_empty() || self.rng.chance(15) {
            self.text(format!("{p}(void){call};"));
        } else {
            let target = self.rng.pick(&targets).clone();
            self.text(format!("{p}{} = ({}){call};", target.name, target.ty));
        }
    }

    fn condition(&mut self, scope: &[Var]) -> String {
        let ty = *self.rng.pick(&[CType::Bool, CType::I32, CType::U8]);
        self.expr(scope, ty, 2)
    }

    /// A side-effect-free expression of type `ty`, free of undefined behaviour.
    fn expr(&mut self, scope: &[Var], ty: CType, depth: usize) -> String {
        let t = ty.c_name();
        if depth == 0 || self.rng.chance(25) {
            return self.leaf(scope, ty);
        }
        let d = depth - 1;
        let u = *self.rng.pick(&[CType::U32, CType::U64]);
        let (un, uw) = (u.c_name(), u.width());
        match self.rng.below(13) {
            0 => {
                let (a, b) = (self.any_expr(scope, d), self.any_expr(scope, d));
                let op = self.rng.pick(ARITH);
                format!("(({t})(({un})({a}) {op} ({un})({b})))")
            }
            1 => {
                // Promoted to int: + and - cannot overflow; * only with an 8-bit operand.
                let narrow = [CType::Bool, CType::I8, CType::U8, CType::I16, CType::U16];
                let ta = *self.rng.pick(&narrow);
                let tb = *self.rng.pick(&[CType::Bool, CType::I8, CType::U8]);
                let (a, b) = (self.expr(scope, ta, d), self.expr(scope, tb, d));
                let op = self.rng.pick(ARITH);
                format!("(({t})({a} {op} {b}))")
            }
            2 => {
                // Signed arithmetic on operands reduced by `%`: no overflow, nsw in IR.
                let (a, b) = (self.any_expr(scope, d), self.any_expr(scope, d));
                let (st, m) = if self.rng.chance(50) {
                    ("int", "1000")
                } else {
                    ("long long", "1000000LL")
                };
                let op = self.rng.pick(ARITH);
                format!("(({t})((({st})({a}) % {m}) {op} (({st})({b}) % {m})))")
            }
            3 => {
                let a = self.any_expr(scope, d);
                let k = self.rng.pick(&[1, 2, 3, 5, 7, 8, 10, 255]);
                let op = self.rng.pick(&["/", "%"]);
                if self.rng.chance(50) {
                    format!("(({t})(({un})({a}) {op} {k}U))")
                } else {
                    let k = self.rng.pick(&[2, 3, -3, 4, 7, -8, 10]);
                    format!("(({t})((int)({a}) {op} {k}))")
                }
            }
            4 => {
                let (a, b) = (self.any_expr(scope, d), self.any_expr(scope, d));
                let op = self.rng.pick(&["/", "%"]);
                if self.rng.chance(50) {
                    format!(
                        "(({t})(({un})({b}) != 0 ? ({un})({a}) {op} ({un})({b}) : ({un})({a})))"
                    )
                } else {
                    format!(
                        "(({t})(((int)({b}) == 0 || ((int)({a}) == (-2147483647 - 1) && (int)({b}) == -1)) ? 0 : (int)({a}) {op} (int)({b})))"
                    )
                }
            }
            5 => {
                let (a, b) = (self.any_expr(scope, d), self.any_expr(scope, d));
                match self.rng.below(5) {
                    0 => format!(
                        "(({t})(({un})({a}) {} ((unsigned)({b}) & {}U)))",
                        self.rng.pick(&["<<", ">>"]),
                        uw - 1
                    ),
                    1 => format!("(({t})((int)({a}) >> ((unsigned)({b}) & 31U)))"),
                    // Counts of bits, of operands that keep them defined (not zero).
                    2 => {
                        let count = self.rng.pick(&[
                            "__builtin_popcount((unsigned)({a}))",
                            "__builtin_clz((unsigned)({a}) | 1U)",
                            "__builtin_ctz((unsigned)({a}) | 0x80000000U)",
                            "(31 ^ __builtin_clz((unsigned)({a}) | 1U))",
                            "__builtin_clzll((unsigned long long)({a}) | 1ULL)",
                            "__builtin_popcountll((unsigned long long)({a}))",
                        ]);
                        format!("(({t}){})", count.replace("{a}", &a))
                    }
                    // A shift by a count: below 32.
                    3 => format!(
                        "(({t})(({un})({a}) {} __builtin_clz((unsigned)({b}) | 1U)))",
                        self.rng.pick(&["<<", ">>"])
                    ),
                    _ => format!(
                        "(({t})(({un})({a}) {} {}))",
                        self.rng.pick(&["<<", ">>"]),
                        self.rng.below(uw as usize)
                    ),
                }
            }
            6 => {
                let (a, b) = (self.any_expr(scope, d), self.any_expr(scope, d));
                format!("(({t})({a} {} {b}))", self.rng.pick(BITWISE))
            }
            7 => {
                let a = self.any_expr(scope, d);
                format!("(({t})~{a})")
            }
            8 | 9 => {
                let op = self.rng.pick(COMPARISONS);
                let a = self.any_expr(scope, d);
                if self.rng.chance(50) {
                    let b = self.any_expr(scope, d);
                    format!("(({t})({a} {op} {b}))")
                } else {
                    let k = self.bare_constant();
                    if self.rng.chance(50) {
                        format!("(({t})({k} {op} {a}))")
                    } else {
                        format!("(({t})({a} {op} {k}))")
                    }
                }
            }
            10 => {
                let a = self.any_expr(scope, d);
                match self.rng.below(4) {
                    0 => format!("(({t})!{a})"),
                    1 => format!("(({t})(_Bool){a})"),
                    2 => {
                        let b = self.any_expr(scope, d);
                        format!("(({t})({a} && {b}))")
                    }
                    _ => {
                        let b = self.any_expr(scope, d);
                        format!("(({t})({a} || {b}))")
                    }
                }
            }
            11 => {
                let c = self.any_expr(scope, d);
                let (a, b) = (self.expr(scope, ty, d), self.expr(scope, ty, d));
                format!("({c} ? {a} : {b})")
            }
            _ => {
                let a = self.any_expr(scope, d);
                if self.rng.chance(50) {
                    format!("(({t})-({un})({a}))")
                } else {
                    let narrow = *self
                        .rng
                        .pick(&[CType::I8, CType::U8, CType::I16, CType::U16]);
                    let a = self.expr(scope, narrow, d);
                    format!("(({t})-{a})")
                }
            }
        }
    }

    fn any_expr(&mut self, scope: &[Var], depth: usize) -> String {
        let ty = self.any_type();
        self.expr(scope, ty, depth)
    }

    /// A constant as users write them beside a comparison: `0`, `0u`, `-1`, `255`, ...
    fn bare_constant(&mut self) -> String {
        match self.rng.below(6) {
            0 => self
                .rng
                .pick(&["0", "0U", "1", "1U", "-1", "2"])
                .to_string(),
            1 => self
                .rng
                .pick(&["127", "128", "255", "256", "-128", "32767", "65535"])
                .to_string(),
            2 => self
                .rng
                .pick(&[
                    "2147483647",
                    "(-2147483647 - 1)",
                    "4294967295U",
                    "2147483648U",
                    "0xFFFFFFFFFFFFFFFFULL",
                    "(-9223372036854775807LL - 1)",
                ])
                .to_string(),
            _ => {
                let ty = self.any_type();
                let v = self.value(ty);
                ty.literal(v)
            }
        }
    }

    fn leaf(&mut self, scope: &[Var], ty: CType) -> String {
        if scope.is_empty() || self.rng.chance(25) {
            let v = self.value(ty);
            return ty.literal(v);
        }
        let var = self.rng.pick(scope);
        if var.ty == ty {
            var.name.clone()
        } else {
            format!("(({ty}){})", var.name)
        }
    }
}

fn pad(indent: usize) -> String {
    "  ".repeat(indent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_deterministic_and_varied() {
        // Over a few seeds, every class of program shows up.
        crate::soundness::assert_deterministic_and_varied(
            generate,
            7,
            &[
                "atexit",
                "uninitialized",
                "O2",
                "own-nondet",
                "recursion",
                "escaping-table",
                "empty-reach-error",
                "error-through-pointer",
                "qsort-comparator",
                "setjmp",
                "array",
                "array-loop",
                "array-init-loop",
                "struct",
                "pointer-alias",
                "out-parameter",
                "fill-through-argument",
            ],
        );
    }
}
