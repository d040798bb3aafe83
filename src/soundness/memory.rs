//! The memory generator: UB-free C programs whose values live in memory, for the
//! memory model (bases, cells, smashed arrays, segments, points-to, call effects) and the
//! replay of counterexamples. A program declares global and local arrays (1-D and 2-D),
//! heap buffers (`malloc`, `calloc`, `realloc`), arrays of structs and structs holding
//! arrays, then runs a random sequence of *snippets* on them: fills up, down and by strides
//! (bounded by constants or by inputs), copies and reversals, pointer walks (`p++` up to
//! `p < end`, down to the base, searches ending in a pointer difference), two pointers that
//! may alias one array at computed offsets, writes through a pointer in a loop,
//! `memcpy`/`memset`/`memmove`, struct copies, calls (inlinable, `noinline`, external, or
//! through a `volatile` function pointer) that write through their arguments, return a
//! pointer to one of them, or write globals, and the snippets of [`pointers`]: walks that
//! compare pointers (`while (p < end)`, two ends meeting, a search giving a pointer or
//! `NULL`), a callee that checks its pointer against `NULL`, structs holding a pointer
//! (`s->buf[i]`), allocation in loops (kept in an array of pointers, or freed in the same
//! iteration), tables of pointers stored and loaded, a cursor that a helper advances or
//! replaces through its address, and `free` in the middle of `main`.
//! Probes read cells after each snippet.
//!
//! Undefined behaviour is avoided by construction: every object is fully initialized
//! before it is read (an uninitialized array is filled by a loop first), every index is a
//! constant below the length or reduced with `%`, arithmetic is done in `unsigned long
//! long` and converted back (implementation-defined, never undefined), `memcpy` never gets
//! overlapping ranges, heap buffers are checked against NULL and never used after a
//! `realloc` moved them or a `free` ended them (a freed buffer leaves the snippets' arrays).
//! The oracle builds these programs with the address sanitizer too
//! ([`Skeleton::oracle_cflags`]), so a memory error rejects a program instead of letting it
//! be judged; [`generate_with_errors`] writes one on purpose, and its oracle records it.

use super::rng::Rng;
use super::{AssertStyle, CType, Line, Skeleton};

/// Most input valuations of a program: a fixed limit on the native runs under the
/// sanitizers one program of the harness costs.
const MAX_VALUATIONS: i128 = 48;

/// Element types of arrays.
const ELEMENTS: [CType; 6] = [
    CType::I32,
    CType::I32,
    CType::U32,
    CType::I16,
    CType::U8,
    CType::I64,
];

mod errors;
mod pointers;

/// Generates the program of `seed`.
pub fn generate(seed: u64) -> Skeleton {
    Gen::new(seed, false).program()
}

/// Generates the program of `seed` with, most of the time, one memory error on a path
/// that some inputs take (or none take): see [`errors`]. The oracle records the memory
/// errors, and the analyzer checks everything (`--checks all`).
pub fn generate_with_errors(seed: u64) -> Skeleton {
    Gen::new(seed ^ 0x6572_726f, true).program()
}

/// A 1-D array the snippets may use: an expression that names it (or points to its
/// first element), its element type and its length. Every element is initialized.
#[derive(Clone, Debug)]
struct Array {
    name: String,
    ty: CType,
    len: usize,
    storage: Storage,
}

/// Where an array lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Storage {
    /// A global array of its own.
    Global,
    /// A local array of its own.
    Local,
    /// A `malloc`/`calloc`'d buffer, named by a pointer variable or cell (a `realloc` may
    /// move and grow it, a `free` end it).
    Heap,
    /// Part of a larger object (a struct's field, a matrix's row): an access past its end
    /// stays inside the object, where the address sanitizer does not see it.
    Part,
}

/// An input of `main`: an `int` or `unsigned int` in `lo..=hi`.
#[derive(Clone, Debug)]
struct Input {
    name: String,
    lo: i128,
    hi: i128,
}

struct Gen {
    rng: Rng,
    /// Globals, types and functions, before `main`.
    top: Vec<Line>,
    /// The body of `main`.
    body: Vec<Line>,
    next_id: usize,
    classes: Vec<&'static str>,
    arrays: Vec<Array>,
    /// Inputs of `main` (`int` or `unsigned int`, small ranges).
    inputs: Vec<Input>,
    /// Heap buffers to free at the end of `main`.
    heap: Vec<String>,
    /// Values are mostly constants: cells the analyzer can know exactly, so that it
    /// proves (and may wrongly prove) more.
    constants: bool,
    /// Whether to write one memory error ([`errors`]).
    with_error: bool,
}

impl Gen {
    fn new(seed: u64, with_error: bool) -> Gen {
        Gen {
            rng: Rng::new(seed ^ 0x6d65_6d6f),
            top: Vec::new(),
            body: Vec::new(),
            next_id: 0,
            classes: Vec::new(),
            arrays: Vec::new(),
            inputs: Vec::new(),
            heap: Vec::new(),
            constants: false,
            with_error,
        }
    }

    fn program(&mut self) -> Skeleton {
        let style = *self.rng.pick(&[
            AssertStyle::SvComp,
            AssertStyle::SvComp,
            AssertStyle::ReachError,
            AssertStyle::CAssert,
        ]);
        let analysis_cflags = super::optimization_flags(&mut self.rng, &mut self.classes, 1);
        self.constants = self.rng.chance(50);
        if self.constants {
            self.classes.push("constant-values");
        }
        self.globals();
        self.inputs();
        for _ in 0..1 + self.rng.below(2) {
            self.local_array();
        }
        if self.rng.chance(35) {
            self.heap_array();
        }
        if self.rng.chance(35) {
            self.structs();
        }
        if self.rng.chance(30) {
            self.matrix();
        }
        if self.rng.chance(25) {
            self.uninitialized_array();
        }
        let n_snippets = 3 + self.rng.below(5);
        // Where the memory error goes, if any.
        let error_at = (self.with_error && self.rng.chance(80)).then(|| self.rng.below(n_snippets));
        if self.with_error && error_at.is_none() {
            self.classes.push("no-memory-error");
        }
        for k in 0..n_snippets {
            if error_at == Some(k) {
                self.memory_error();
            }
            self.snippet();
            for _ in 0..self.rng.below(3) {
                self.probe_cell();
            }
        }
        for _ in 0..2 + self.rng.below(3) {
            self.probe_cell();
        }
        for h in self.heap.clone() {
            self.line(format!("  free({h});"));
        }
        self.line("  return 0;".into());
        self.line("}".into());
        let mut lines = std::mem::take(&mut self.top);
        lines.push(Line::Open {
            text: "int main(void) {".into(),
            function: "main".into(),
        });
        lines.append(&mut self.body);
        self.classes.sort();
        self.classes.dedup();
        Skeleton {
            lines,
            includes: vec![
                "#include <stdlib.h>".to_string(),
                "#include <string.h>".to_string(),
            ],
            style,
            cflags: Vec::new(),
            oracle_cflags: vec!["-fsanitize=address".to_string()],
            analysis_cflags,
            analysis_checks: self.with_error.then_some("all"),
            record_memory_errors: self.with_error,
            classes: std::mem::take(&mut self.classes),
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}{}", self.next_id)
    }

    /// One [`Line`] per line of `text` (the analyzed program's line numbers count them).
    fn top(&mut self, text: String) {
        self.top
            .extend(text.lines().map(|l| Line::Text(l.to_string())));
    }

    /// The function `function`: `header` (its last line is the definition's, ending with
    /// the parameters) and its `body` on a line of its own.
    fn define(&mut self, function: &str, header: &str, body: String) {
        let (before, last) = header.rsplit_once('\n').unwrap_or(("", header));
        self.top(before.to_string());
        self.top.push(Line::Open {
            text: format!("{last} {{"),
            function: function.to_string(),
        });
        self.top(format!("  {body}"));
        self.top("}".to_string());
    }

    fn line(&mut self, text: String) {
        self.body
            .extend(text.lines().map(|l| Line::Text(l.to_string())));
    }

    fn probe(&mut self, expr: String, ty: CType) {
        self.next_id += 1;
        self.body.push(Line::Probe {
            id: self.next_id,
            expr,
            ty,
        });
    }

    fn element(&mut self) -> CType {
        *self.rng.pick(&ELEMENTS)
    }

    /// A constant of `ty`, small or a boundary.
    fn literal(&mut self, ty: CType) -> String {
        let v = match self.rng.below(6) {
            0 => ty.highest(),
            1 if ty.is_signed() => ty.lowest(),
            _ => self.rng.range(ty.lowest().max(-3), ty.highest().min(9)),
        };
        ty.literal(v)
    }

    /// An index below `len`: a constant, or an input or a cell reduced modulo `len`.
    fn index(&mut self, len: usize) -> String {
        match self.rng.below(4) {
            0 | 1 if !self.inputs.is_empty() => {
                let input = self.rng.pick(&self.inputs).name.clone();
                format!("(unsigned)({input}) % {len}U")
            }
            2 if !self.arrays.is_empty() => {
                let cell = self.cell();
                format!("(unsigned)({}) % {len}U", cell.0)
            }
            _ => self.rng.below(len).to_string(),
        }
    }

    /// A random cell of an array: its lvalue and type.
    fn cell(&mut self) -> (String, CType) {
        let a = self.rng.pick(&self.arrays).clone();
        let i = if self.rng.chance(60) || self.inputs.is_empty() {
            self.rng.below(a.len).to_string()
        } else {
            let input = self.rng.pick(&self.inputs).name.clone();
            format!("(unsigned)({input}) % {}U", a.len)
        };
        (format!("{}[{i}]", a.name), a.ty)
    }

    /// A side-effect-free expression of type `ty` (cells, inputs, constants).
    fn value(&mut self, ty: CType, depth: usize) -> String {
        if self.constants && self.rng.chance(60) {
            return self.literal(ty);
        }
        match self.rng.below(if depth == 0 { 3 } else { 5 }) {
            0 => self.literal(ty),
            1 if !self.inputs.is_empty() => {
                let input = self.rng.pick(&self.inputs).name.clone();
                format!("({ty})({input})")
            }
            2 if !self.arrays.is_empty() => {
                let (cell, _) = self.cell();
                format!("({ty})({cell})")
            }
            3 | 4 => {
                let a = self.value(ty, depth - 1);
                let b = self.value(ty, depth - 1);
                let op = *self.rng.pick(&["+", "-", "*", "^", "|", "&"]);
                format!("({ty})((unsigned long long)({a}) {op} (unsigned long long)({b}))")
            }
            _ => self.literal(ty),
        }
    }

    /// `lhs = f(rhs, i)` in `unsigned long long`, converted to `ty`.
    fn step(&mut self, ty: CType, base: &str, i: &str) -> String {
        let m = 1 + self.rng.below(5);
        let c = self.rng.below(7);
        format!(
            "({ty})((unsigned long long)({base}) + (unsigned long long)({i}) * {m}ULL + {c}ULL)"
        )
    }

    fn condition(&mut self) -> String {
        let a = self.value(CType::I64, 1);
        let b = self.value(CType::I64, 0);
        let op = *self.rng.pick(&["<", "<=", "==", "!=", ">"]);
        format!("{a} {op} {b}")
    }

    fn globals(&mut self) {
        for _ in 0..self.rng.below(3) {
            self.classes.push("global-array");
            let ty = self.element();
            let len = 2 + self.rng.below(6);
            let name = self.fresh("g");
            if self.rng.chance(40) {
                // Zero-initialized.
                self.top(format!("static {ty} {name}[{len}];"));
            } else {
                let init: Vec<String> = (0..len).map(|_| self.literal(ty)).collect();
                let storage = if self.rng.chance(50) { "static " } else { "" };
                self.top(format!(
                    "{storage}{ty} {name}[{len}] = {{{}}};",
                    init.join(", ")
                ));
            }
            self.arrays.push(Array {
                name,
                ty,
                len,
                storage: Storage::Global,
            });
        }
    }

    fn inputs(&mut self) {
        let mut valuations = 1i128;
        for _ in 0..self.rng.below(4) {
            let size = 1 + self.rng.below(4) as i128;
            if valuations * size > MAX_VALUATIONS {
                break;
            }
            valuations *= size;
            let name = self.fresh("in");
            let (ty, nondet, lo) = if self.rng.chance(70) {
                (CType::I32, "__VERIFIER_nondet_int", self.rng.range(-2, 6))
            } else {
                (CType::U32, "__VERIFIER_nondet_uint", self.rng.range(0, 6))
            };
            self.body.push(Line::Input {
                name: name.clone(),
                ty,
                nondet,
                lo,
                hi: lo + size - 1,
            });
            self.inputs.push(Input {
                name,
                lo,
                hi: lo + size - 1,
            });
        }
    }

    fn local_array(&mut self) {
        self.classes.push("local-array");
        let ty = self.element();
        let len = 2 + self.rng.below(7);
        let name = self.fresh("a");
        let init: Vec<String> = (0..len).map(|_| self.value(ty, 1)).collect();
        self.line(format!("  {ty} {name}[{len}] = {{{}}};", init.join(", ")));
        self.arrays.push(Array {
            name,
            ty,
            len,
            storage: Storage::Local,
        });
    }

    fn heap_array(&mut self) {
        let ty = self.element();
        let len = 2 + self.rng.below(6);
        let name = self.fresh("h");
        if self.rng.chance(40) {
            self.classes.push("calloc");
            self.line(format!(
                "  {ty} *{name} = calloc({len}, sizeof({ty})); if (!{name}) return 0;"
            ));
        } else {
            self.classes.push("malloc");
            self.line(format!(
                "  {ty} *{name} = malloc({len} * sizeof({ty})); if (!{name}) return 0;"
            ));
            let v = self.value(ty, 1);
            let s = self.step(ty, &v, "i");
            self.line(format!(
                "  for (int i = 0; i < {len}; i++) {name}[i] = {s};"
            ));
        }
        self.heap.push(name.clone());
        self.arrays.push(Array {
            name,
            ty,
            len,
            storage: Storage::Heap,
        });
    }

    /// An array of structs that hold an array; each struct's array becomes an array of
    /// the snippets.
    fn structs(&mut self) {
        self.classes.push("struct-array");
        let tag = self.fresh("S");
        let (tx, ty, tz) = (self.element(), self.element(), self.element());
        let inner = 2 + self.rng.below(3);
        self.top(format!(
            "struct {tag} {{ {tx} x; {ty} y[{inner}]; {tz} z; }};"
        ));
        let n = 2 + self.rng.below(3);
        let name = self.fresh("st");
        if self.rng.chance(50) {
            self.line(format!("  struct {tag} {name}[{n}] = {{0}};"));
        } else {
            self.line(format!("  struct {tag} {name}[{n}];"));
            let vx = self.value(tx, 1);
            let vz = self.value(tz, 1);
            let sx = self.step(tx, &vx, "i");
            self.line(format!(
                "  for (int i = 0; i < {n}; i++) {{ {name}[i].x = {sx}; {name}[i].z = {vz}; for (int j = 0; j < {inner}; j++) {name}[i].y[j] = ({ty})(i * 7 + j); }}"
            ));
        }
        // Fields through a pointer to a computed element.
        let k = self.index(n);
        let p = self.fresh("ps");
        self.line(format!("  struct {tag} *{p} = &{name}[{k}];"));
        let v = self.value(tx, 1);
        self.line(format!("  {p}->x = {v};"));
        let j = self.index(inner);
        let w = self.value(ty, 1);
        self.line(format!("  {p}->y[{j}] = {w};"));
        self.probe(format!("{p}->x"), tx);
        if self.rng.chance(50) {
            // A struct copy between two distinct elements.
            self.classes.push("struct-copy");
            let (a, b) = (0, 1 + self.rng.below(n - 1));
            let (a, b) = if self.rng.chance(50) { (a, b) } else { (b, a) };
            self.line(format!("  {name}[{a}] = {name}[{b}];"));
        }
        if self.rng.chance(50) {
            // A callee that writes fields through its argument.
            self.classes.push("struct-out-parameter");
            let v = self.value(tz, 0);
            let f = self.fresh("setf");
            let (header, callee) = self.callee_header(
                &f,
                "void",
                &format!("struct {tag} *s, {tz} v"),
                &format!("struct {tag} *, {tz}"),
            );
            self.define(
                &f,
                &header,
                format!(
                    "s->z = v; s->y[{}] = ({ty})((unsigned long long)s->x + 1ULL);",
                    inner - 1
                ),
            );
            let k = self.index(n);
            self.line(format!("  {callee}(&{name}[{k}], {v});"));
        }
        let k = self.rng.below(n);
        self.probe(format!("{name}[{k}].z"), tz);
        for i in 0..n {
            self.arrays.push(Array {
                name: format!("{name}[{i}].y"),
                ty,
                len: inner,
                storage: Storage::Part,
            });
        }
        let x = format!("{name}[{}].x", self.rng.below(n));
        self.probe(x, tx);
    }

    /// A 2-D array filled by a nested loop, maybe transposed into another; its rows become
    /// arrays of the snippets.
    fn matrix(&mut self) {
        self.classes.push("2d-array");
        let ty = self.element();
        let (r, c) = (2 + self.rng.below(3), 2 + self.rng.below(3));
        let name = self.fresh("m");
        if self.rng.chance(40) {
            self.top(format!("static {ty} {name}[{r}][{c}];"));
        } else {
            self.line(format!("  {ty} {name}[{r}][{c}];"));
        }
        let v = self.value(ty, 1);
        let s = self.step(ty, &v, "i * 5 + j");
        self.line(format!(
            "  for (int i = 0; i < {r}; i++) for (int j = 0; j < {c}; j++) {name}[i][j] = {s};"
        ));
        let (i, j) = (self.index(r), self.index(c));
        self.probe(format!("{name}[{i}][{j}]"), ty);
        if self.rng.chance(50) {
            self.classes.push("2d-transpose");
            let t = self.fresh("t");
            self.line(format!("  {ty} {t}[{c}][{r}];"));
            self.line(format!(
                "  for (int i = 0; i < {r}; i++) for (int j = 0; j < {c}; j++) {t}[j][i] = {name}[i][j];"
            ));
            let (i, j) = (self.index(c), self.index(r));
            self.probe(format!("{t}[{i}][{j}]"), ty);
            let row = self.rng.below(c);
            self.arrays.push(Array {
                name: format!("{t}[{row}]"),
                ty,
                len: r,
                storage: Storage::Part,
            });
        }
        let row = self.rng.below(r);
        self.arrays.push(Array {
            name: format!("{name}[{row}]"),
            ty,
            len: c,
            storage: Storage::Part,
        });
    }

    /// An uninitialized local array, written by a loop before anything reads it.
    fn uninitialized_array(&mut self) {
        self.classes.push("written-before-read");
        let ty = self.element();
        let len = 2 + self.rng.below(6);
        let name = self.fresh("u");
        self.line(format!("  {ty} {name}[{len}];"));
        let v = self.value(ty, 1);
        let s = self.step(ty, &v, "i");
        if self.rng.chance(50) {
            self.line(format!(
                "  for (int i = {}; i >= 0; i--) {name}[i] = {s};",
                len - 1
            ));
        } else {
            self.line(format!(
                "  for (int i = 0; i < {len}; i++) {name}[i] = {s};"
            ));
        }
        self.arrays.push(Array {
            name,
            ty,
            len,
            storage: Storage::Local,
        });
    }

    fn array(&mut self) -> Array {
        self.rng.pick(&self.arrays).clone()
    }

    /// Another array of the same element type than `a`, if any.
    fn partner(&mut self, a: &Array) -> Option<Array> {
        let same: Vec<Array> = self
            .arrays
            .iter()
            .filter(|b| b.ty == a.ty && b.name != a.name && !overlaps(&a.name, &b.name))
            .cloned()
            .collect();
        (!same.is_empty()).then(|| self.rng.pick(&same).clone())
    }

    /// A loop bound at most `len`: the length, or an input reduced below `len + 1`.
    fn bound(&mut self, len: usize) -> String {
        if !self.inputs.is_empty() && self.rng.chance(50) {
            self.classes.push("input-bound");
            let input = self.rng.pick(&self.inputs).name.clone();
            format!("(int)((unsigned)({input}) % {}U)", len + 1)
        } else {
            len.to_string()
        }
    }

    fn snippet(&mut self) {
        match self.rng.below(16) {
            12..=15 => self.pointer_snippet(),
            0 | 1 => self.fill(),
            2 => self.copy(),
            3 => self.reverse(),
            4 => self.walk(),
            5 => self.alias(),
            6 => self.window(),
            7 | 8 => self.call(),
            9 => self.library(),
            10 if self.arrays.iter().any(|a| a.storage == Storage::Heap) => self.grow(),
            _ => self.conditional_copy(),
        }
    }

    fn fill(&mut self) {
        let a = self.array();
        let n = a.len;
        let b = self.bound(n);
        if self.rng.chance(30) {
            // A prefix filled with one constant, read below its bound (segments).
            self.classes.push("fill-constant");
            let c = self.literal(a.ty);
            self.line(format!(
                "  for (int i = 0; i < {b}; i++) {}[i] = {c};",
                a.name
            ));
            return self.probe_below(&a, &b);
        }
        let v = self.value(a.ty, 1);
        let name = &a.name;
        let old = format!("{name}[i]");
        let base = if self.rng.chance(40) { old } else { v };
        let s = self.step(a.ty, &base, "i");
        let text = match self.rng.below(4) {
            0 => {
                self.classes.push("fill-down");
                format!("  for (int i = {b} - 1; i >= 0; i--) {name}[i] = {s};")
            }
            1 => {
                self.classes.push("fill-stride");
                let start = self.rng.below(2);
                format!("  for (int i = {start}; i < {b}; i += 2) {name}[i] = {s};")
            }
            _ => {
                self.classes.push("fill-up");
                format!("  for (int i = 0; i < {b}; i++) {name}[i] = {s};")
            }
        };
        self.line(text);
    }

    fn copy(&mut self) {
        let a = self.array();
        let Some(b) = self.partner(&a) else {
            return self.fill();
        };
        let n = a.len.min(b.len);
        let bound = self.bound(n);
        if self.rng.chance(50) {
            self.classes.push("copy-reversed");
            self.line(format!(
                "  for (int i = 0; i < {bound}; i++) {}[i] = {}[{n} - 1 - i];",
                a.name, b.name
            ));
        } else {
            self.classes.push("copy");
            self.line(format!(
                "  for (int i = 0; i < {bound}; i++) {}[i] = {}[i];",
                a.name, b.name
            ));
        }
        self.probe_below(&a, &bound);
    }

    fn reverse(&mut self) {
        self.classes.push("reverse-in-place");
        let a = self.array();
        let ty = a.ty;
        self.line(format!(
            "  for (int i = 0, j = {} - 1; i < j; i++, j--) {{ {ty} t = {}[i]; {}[i] = {}[j]; {}[j] = t; }}",
            a.len, a.name, a.name, a.name, a.name
        ));
    }

    /// Pointer walks: a `p++` loop to `p < end`, a walk down to the base, a sum, a search.
    fn walk(&mut self) {
        let a = self.array();
        let ty = a.ty;
        let (name, n) = (a.name.clone(), a.len);
        let p = self.fresh("p");
        match self.rng.below(4) {
            0 => {
                self.classes.push("pointer-walk-up");
                let c = self.rng.below(5);
                self.line(format!(
                    "  for ({ty} *{p} = {name}, *end = {name} + {n}; {p} < end; {p}++) *{p} = ({ty})((unsigned long long)*{p} * 2ULL + {c}ULL);"
                ));
            }
            1 => {
                self.classes.push("pointer-walk-down");
                let v = self.value(ty, 0);
                self.line(format!(
                    "  for ({ty} *{p} = {name} + {n}; {p} > {name}; ) {{ --{p}; *{p} = ({ty})((unsigned long long)*{p} + (unsigned long long)({v})); }}"
                ));
            }
            2 => {
                self.classes.push("pointer-sum");
                let acc = self.fresh("acc");
                self.line(format!("  unsigned long long {acc} = 0;"));
                self.line(format!(
                    "  for (const {ty} *{p} = {name}; {p} != {name} + {n}; {p}++) {acc} += (unsigned long long)*{p};"
                ));
                self.probe(acc, CType::U64);
            }
            _ => {
                self.classes.push("pointer-search");
                let v = self.value(ty, 1);
                self.line(format!("  {ty} *{p} = {name};"));
                self.line(format!(
                    "  while ({p} < {name} + {n} && *{p} != {v}) {p}++;"
                ));
                self.probe(format!("(long long)({p} - {name})"), CType::I64);
            }
        }
    }

    /// Two pointers into one array (or into one of two arrays) at computed offsets.
    fn alias(&mut self) {
        self.classes.push("two-pointers");
        let a = self.array();
        let ty = a.ty;
        let (p, q) = (self.fresh("p"), self.fresh("q"));
        let i = self.index(a.len);
        self.line(format!("  {ty} *{p} = {} + ({i});", a.name));
        match self.partner(&a) {
            Some(b) if self.rng.chance(50) => {
                self.classes.push("pointer-to-either");
                let cond = self.condition();
                let n = a.len.min(b.len);
                let j = self.index(n);
                self.line(format!(
                    "  {ty} *{q} = ({cond}) ? {} + ({j}) : {} + ({j});",
                    a.name, b.name
                ));
            }
            _ => {
                let j = self.index(a.len);
                self.line(format!("  {ty} *{q} = {} + ({j});", a.name));
            }
        }
        let v = self.value(ty, 1);
        self.line(format!("  *{p} = {v};"));
        let c = 1 + self.rng.below(4);
        self.line(format!(
            "  *{q} = ({ty})((unsigned long long)*{p} * 3ULL + {c}ULL);"
        ));
        if self.rng.chance(30) {
            self.classes.push("pointer-to-pointer");
            let pp = self.fresh("pp");
            self.line(format!("  {ty} **{pp} = &{p};"));
            let w = self.value(ty, 0);
            self.line(format!(
                "  **{pp} = ({ty})((unsigned long long)**{pp} + (unsigned long long)({w}));"
            ));
        }
        self.probe(format!("*{p}"), ty);
        self.probe(format!("*{q}"), ty);
        self.probe(format!("(int)({p} == {q})"), CType::I32);
    }

    /// Writes through a pointer to a computed offset, in a loop up to the end.
    fn window(&mut self) {
        self.classes.push("pointer-loop-write");
        let a = self.array();
        let ty = a.ty;
        let off = self.fresh("off");
        let p = self.fresh("w");
        let i = self.index(a.len);
        self.line(format!("  unsigned {off} = {i};"));
        self.line(format!("  {ty} *{p} = {} + {off};", a.name));
        let v = self.value(ty, 1);
        let s = self.step(ty, &v, "i");
        self.line(format!(
            "  for (unsigned i = 0; {off} + i < {}U; i++) {p}[i] = {s};",
            a.len
        ));
        self.probe(format!("{p}[0]"), ty);
    }

    fn conditional_copy(&mut self) {
        self.classes.push("conditional-write");
        let a = self.array();
        let b = self.partner(&a).unwrap_or_else(|| a.clone());
        let n = a.len.min(b.len);
        let c = self.literal(a.ty);
        self.line(format!(
            "  for (int i = 0; i < {n}; i++) if ({}[i] > {c}) {}[i] = {}[i]; else {}[i] = {c};",
            b.name, a.name, b.name, a.name
        ));
    }

    /// `memcpy`, `memset`, `memmove`.
    fn library(&mut self) {
        let a = self.array();
        let ty = a.ty;
        match self.rng.below(3) {
            0 => match self.partner(&a) {
                Some(b) => {
                    self.classes.push("memcpy");
                    let n = a.len.min(b.len);
                    let bound = self.bound(n);
                    self.line(format!(
                        "  memcpy({}, {}, (unsigned)({bound}) * sizeof({ty}));",
                        a.name, b.name
                    ));
                }
                None => self.fill(),
            },
            1 => {
                self.classes.push("memset");
                let c = *self.rng.pick(&[0, 0, 1, 0x7f, 0xff, 3]);
                let bound = self.bound(a.len);
                self.line(format!(
                    "  memset({}, {c}, (unsigned)({bound}) * sizeof({ty}));",
                    a.name
                ));
            }
            _ => {
                self.classes.push("memmove");
                let s = 1 + self.rng.below(a.len - 1);
                let (dst, src) = if self.rng.chance(50) {
                    (format!("{} + {s}", a.name), a.name.clone())
                } else {
                    (a.name.clone(), format!("{} + {s}", a.name))
                };
                self.line(format!(
                    "  memmove({dst}, {src}, {} * sizeof({ty}));",
                    a.len - s
                ));
            }
        }
    }

    /// `realloc` of a heap buffer to twice its length; the new part is filled at once.
    fn grow(&mut self) {
        self.classes.push("realloc");
        let k = self
            .arrays
            .iter()
            .position(|a| a.storage == Storage::Heap)
            .expect("a heap array");
        let a = self.arrays[k].clone();
        let ty = a.ty;
        let r = self.fresh("r");
        let len = a.len * 2;
        self.line(format!(
            "  {ty} *{r} = realloc({}, {len} * sizeof({ty})); if (!{r}) return 0; {} = {r};",
            a.name, a.name
        ));
        let v = self.value(ty, 1);
        let s = self.step(ty, &v, "i");
        self.line(format!(
            "  for (int i = {}; i < {len}; i++) {}[i] = {s};",
            a.len, a.name
        ));
        self.arrays[k].len = len;
    }

    /// The header of a new function and the expression that calls it: a static function
    /// (inlinable), a `noinline` one, an external one, or one called through a `volatile`
    /// function pointer.
    fn callee_header(
        &mut self,
        name: &str,
        ret: &str,
        params: &str,
        param_types: &str,
    ) -> (String, String) {
        match self.rng.below(4) {
            0 => {
                self.classes.push("call-inlinable");
                (format!("static {ret} {name}({params})"), name.to_string())
            }
            1 => {
                self.classes.push("call-noinline");
                (
                    format!("static __attribute__((noinline)) {ret} {name}({params})"),
                    name.to_string(),
                )
            }
            2 => {
                self.classes.push("call-external");
                (format!("{ret} {name}({params})"), name.to_string())
            }
            _ => {
                self.classes.push("call-through-pointer");
                // The pointer is declared right after the function (see `define`).
                let fp = format!("{name}_fp");
                (
                    format!(
                        "static {ret} {name}({params});\nstatic {ret} (*volatile {fp})({param_types}) = {name};\nstatic {ret} {name}({params})"
                    ),
                    fp,
                )
            }
        }
    }

    /// Calls that write through their arguments, return a pointer to one of them, or
    /// write globals.
    fn call(&mut self) {
        let a = self.array();
        let ty = a.ty;
        let f = self.fresh("f");
        match self.rng.below(5) {
            0 => {
                self.classes.push("fill-through-argument");
                let (header, callee) = self.callee_header(
                    &f,
                    "void",
                    &format!("{ty} *p, unsigned n, {ty} v"),
                    &format!("{ty} *, unsigned, {ty}"),
                );
                self.define(&f, &header, format!("for (unsigned i = 0; i < n; i++) p[i] = ({ty})((unsigned long long)v + i * 3ULL);"));
                let n = self.bound(a.len);
                let v = self.value(ty, 1);
                self.line(format!("  {callee}({}, (unsigned)({n}), {v});", a.name));
            }
            1 => {
                // Two out-parameters that may be the same cell.
                self.classes.push("out-parameters");
                let (header, callee) = self.callee_header(
                    &f,
                    "void",
                    &format!("{ty} *x, {ty} *y, {ty} v"),
                    &format!("{ty} *, {ty} *, {ty}"),
                );
                self.define(
                    &f,
                    &header,
                    format!("*x = v; *y = ({ty})((unsigned long long)*x * 2ULL + 1ULL);"),
                );
                let (i, j) = (self.index(a.len), self.index(a.len));
                let v = self.value(ty, 1);
                self.line(format!(
                    "  {callee}(&{}[{i}], &{}[{j}], {v});",
                    a.name, a.name
                ));
            }
            2 => {
                self.classes.push("accumulate-through-arguments");
                let b = self.partner(&a).unwrap_or_else(|| a.clone());
                let (header, callee) = self.callee_header(
                    &f,
                    "void",
                    &format!("{ty} *dst, const {ty} *src, unsigned n"),
                    &format!("{ty} *, const {ty} *, unsigned"),
                );
                self.define(&f, &header, format!("for (unsigned i = 0; i < n; i++) dst[i] = ({ty})((unsigned long long)dst[i] + (unsigned long long)src[i]);"));
                let n = self.bound(a.len.min(b.len));
                self.line(format!(
                    "  {callee}({}, {}, (unsigned)({n}));",
                    a.name, b.name
                ));
            }
            3 => {
                self.classes.push("returns-pointer");
                let b = self.partner(&a).unwrap_or_else(|| a.clone());
                let (header, callee) = self.callee_header(
                    &f,
                    &format!("{ty} *"),
                    &format!("{ty} *a, {ty} *b, int c"),
                    &format!("{ty} *, {ty} *, int"),
                );
                self.define(&f, &header, "return c ? a : b;".to_string());
                let cond = self.condition();
                let k = self.index(a.len.min(b.len));
                let v = self.value(ty, 1);
                self.line(format!(
                    "  {callee}({}, {}, {cond})[{k}] = {v};",
                    a.name, b.name
                ));
            }
            _ => {
                // A callee that writes a global array and counter, and returns a cell
                // through an out-parameter.
                self.classes.push("writes-globals");
                let g = self.fresh("gg");
                let cnt = self.fresh("count");
                let len = 2 + self.rng.below(4);
                self.top(format!("static {ty} {g}[{len}];"));
                self.top(format!("static unsigned {cnt};"));
                let (header, callee) = self.callee_header(
                    &f,
                    "int",
                    &format!("unsigned k, {ty} v, {ty} *out"),
                    &format!("unsigned, {ty}, {ty} *"),
                );
                self.define(&f, &header, format!("{g}[k % {len}U] = v; {cnt}++; *out = {g}[(k + 1U) % {len}U]; return (int)({cnt} & 7U);"));
                let k = self.index(8);
                let v = self.value(ty, 1);
                let r = self.fresh("ret");
                let i = self.index(a.len);
                self.line(format!("  int {r} = {callee}({k}, {v}, &{}[{i}]);", a.name));
                self.probe(r, CType::I32);
                self.arrays.push(Array {
                    name: g,
                    ty,
                    len,
                    storage: Storage::Global,
                });
            }
        }
    }

    /// A probe of `a` at an index below `bound` (an `int` expression), when it is.
    fn probe_below(&mut self, a: &Array, bound: &str) {
        let k = self.index(a.len);
        self.line(format!("  if ((int)({k}) < {bound}) {{"));
        self.probe(format!("{}[{k}]", a.name), a.ty);
        self.line("  }".into());
    }

    fn probe_cell(&mut self) {
        let (cell, ty) = self.cell();
        self.probe(cell, ty);
    }
}

/// Whether two array expressions may name overlapping memory (a matrix and its row).
fn overlaps(a: &str, b: &str) -> bool {
    let root = |s: &str| s.split(['[', '.']).next().unwrap_or(s).to_string();
    root(a) == root(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_deterministic_and_varied() {
        crate::soundness::assert_deterministic_and_varied(
            generate,
            3,
            &[
                "global-array",
                "local-array",
                "malloc",
                "calloc",
                "realloc",
                "struct-array",
                "struct-copy",
                "2d-array",
                "written-before-read",
                "fill-constant",
                "constant-values",
                "fill-down",
                "fill-stride",
                "copy-reversed",
                "reverse-in-place",
                "pointer-walk-up",
                "pointer-search",
                "two-pointers",
                "pointer-to-either",
                "pointer-loop-write",
                "memcpy",
                "memset",
                "memmove",
                "out-parameters",
                "returns-pointer",
                "writes-globals",
                "call-noinline",
                "call-through-pointer",
                "pointers-meeting",
                "pointer-while-less",
                "pointer-or-null",
                "null-check",
                "struct-of-pointer",
                "struct-on-heap",
                "allocation-in-loop-kept",
                "allocation-in-loop-freed",
                "pointer-table",
                "cursor-advanced",
                "cursor-replaced",
                "free-early",
            ],
        );
    }

    #[test]
    fn writes_every_kind_of_memory_error() {
        crate::soundness::assert_deterministic_and_varied(
            generate_with_errors,
            3,
            &[
                "error-read-past-end",
                "error-write-past-end",
                "error-before-start",
                "error-index-reaches-end",
                "error-use-after-free",
                "error-double-free",
                "error-null-dereference",
                "error-on-every-run",
                "error-never-reached",
                "no-memory-error",
            ],
        );
    }
}
