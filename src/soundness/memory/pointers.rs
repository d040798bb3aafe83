//! Snippets of the memory generator that work on pointers as values: walks that compare
//! pointers, a `NULL` check in a callee, structs holding a pointer, allocation in loops,
//! tables of pointers, cursors that helpers advance or replace through their address, and
//! `free` in the middle of `main`. Each keeps to the rules of the
//! generator: in-bounds accesses, nothing read before it is written, no use after `free`.

use super::{Array, CType, Gen, Storage};

impl Gen {
    pub(super) fn pointer_snippet(&mut self) {
        match self.rng.below(7) {
            0 => self.walk_compared(),
            1 => self.null_checked_call(),
            2 => self.struct_of_pointer(),
            3 => self.allocate_in_loop(),
            4 => self.pointer_table(),
            5 => self.cursor_by_address(),
            _ if self.arrays.iter().any(|a| a.storage == Storage::Heap) => self.release(),
            _ => self.walk_compared(),
        }
    }

    /// Walks whose ends are pointer comparisons: two pointers meeting in the middle, a
    /// `while (p < end)` up to a bound, a search that ends in a pointer or `NULL`.
    fn walk_compared(&mut self) {
        let a = self.array();
        let (ty, name, len) = (a.ty, a.name.clone(), a.len);
        match self.rng.below(3) {
            0 => {
                self.classes.push("pointers-meeting");
                let (lo, hi) = (self.fresh("lo"), self.fresh("hi"));
                self.line(format!(
                    "  {ty} *{lo} = {name}, *{hi} = {name} + {};",
                    len - 1
                ));
                self.line(format!(
                    "  while ({lo} < {hi}) {{ {ty} t = *{lo}; *{lo} = *{hi}; *{hi} = t; {lo}++; {hi}--; }}"
                ));
                self.probe(format!("(long long)({lo} - {name})"), CType::I64);
            }
            1 => {
                self.classes.push("pointer-while-less");
                let (p, end, acc) = (self.fresh("p"), self.fresh("end"), self.fresh("acc"));
                let bound = self.bound(len);
                let c = self.literal(ty);
                self.line(format!(
                    "  const {ty} *{p} = {name}, *{end} = {name} + ({bound});"
                ));
                self.line(format!("  unsigned long long {acc} = 0;"));
                self.line(format!(
                    "  while ({p} < {end}) {{ if (*{p} > {c}) {acc} += (unsigned long long)*{p}; {p}++; }}"
                ));
                self.probe(acc, CType::U64);
                self.probe(format!("(long long)({p} - {name})"), CType::I64);
            }
            _ => {
                self.classes.push("pointer-or-null");
                let (found, p) = (self.fresh("found"), self.fresh("p"));
                let v = self.value(ty, 1);
                self.line(format!("  {ty} *{found} = NULL;"));
                self.line(format!(
                    "  for ({ty} *{p} = {name}; {p} < {name} + {len}; {p}++) if (*{p} == {v}) {{ {found} = {p}; break; }}"
                ));
                self.line(format!("  if ({found} != NULL) {{"));
                self.probe(format!("*{found}"), ty);
                self.probe(format!("(long long)({found} - {name})"), CType::I64);
                self.line("  }".into());
                self.probe(format!("(int)({found} == NULL)"), CType::I32);
            }
        }
    }

    /// A callee that returns early on a `NULL` pointer, called with an array or `NULL`
    /// depending on a condition.
    fn null_checked_call(&mut self) {
        self.classes.push("null-check");
        let a = self.array();
        let ty = a.ty;
        let f = self.fresh("sum");
        let (header, callee) = self.callee_header(
            &f,
            "long long",
            &format!("const {ty} *p, unsigned n"),
            &format!("const {ty} *, unsigned"),
        );
        self.define(
            &f,
            &header,
            "if (p == NULL) return -1; unsigned long long s = 0; for (unsigned i = 0; i < n; i++) s += (unsigned long long)p[i]; return (long long)(s & 0xffffffULL);".to_string(),
        );
        let q = self.fresh("q");
        let cond = self.condition();
        let n = self.bound(a.len);
        self.line(format!("  const {ty} *{q} = ({cond}) ? {} : NULL;", a.name));
        let r = self.fresh("r");
        self.line(format!("  long long {r} = {callee}({q}, (unsigned)({n}));"));
        self.probe(r, CType::I64);
    }

    /// A struct that holds a pointer to an array and its length, on the stack or the heap;
    /// the array is written through it and directly.
    fn struct_of_pointer(&mut self) {
        self.classes.push("struct-of-pointer");
        let a = self.array();
        let (ty, len) = (a.ty, a.len);
        let tag = self.fresh("B");
        self.top(format!(
            "struct {tag} {{ {ty} *buf; unsigned len; {ty} last; }};"
        ));
        let ps = self.fresh("ps");
        let on_heap = self.rng.chance(40);
        if on_heap {
            self.classes.push("struct-on-heap");
            self.line(format!(
                "  struct {tag} *{ps} = malloc(sizeof *{ps}); if (!{ps}) return 0;"
            ));
            self.line(format!(
                "  {ps}->buf = {}; {ps}->len = {len}U; {ps}->last = 0;",
                a.name
            ));
        } else {
            let s = self.fresh("sb");
            self.line(format!("  struct {tag} {s} = {{ {}, {len}U, 0 }};", a.name));
            self.line(format!("  struct {tag} *{ps} = &{s};"));
        }
        let v = self.value(ty, 1);
        let step = self.step(ty, &v, "i");
        self.line(format!(
            "  for (unsigned i = 0; i < {ps}->len; i++) {ps}->buf[i] = {step};"
        ));
        self.line(format!("  {ps}->last = {ps}->buf[{ps}->len - 1U];"));
        let k = self.index(len);
        let w = self.literal(ty);
        self.line(format!("  {}[{k}] = {w};", a.name));
        let j = self.index(len);
        self.probe(format!("{ps}->buf[{j}]"), ty);
        self.probe(format!("{ps}->last"), ty);
        if on_heap {
            self.line(format!("  free({ps});"));
        }
    }

    /// Buffers allocated in a loop: kept in an array of pointers (they become arrays of
    /// the snippets, freed at the end of `main`), or freed in the same iteration.
    fn allocate_in_loop(&mut self) {
        let ty = self.element();
        let k = 2 + self.rng.below(3);
        let v = self.value(ty, 1);
        if self.rng.chance(60) {
            self.classes.push("allocation-in-loop-kept");
            let bufs = self.fresh("bufs");
            let step = self.step(ty, &v, "i * 3 + j");
            self.line(format!("  {ty} *{bufs}[{k}];"));
            self.line(format!("  for (int i = 0; i < {k}; i++) {{"));
            self.line(format!(
                "    {bufs}[i] = malloc((unsigned)(i + 2) * sizeof({ty})); if (!{bufs}[i]) return 0;"
            ));
            self.line(format!(
                "    for (int j = 0; j < i + 2; j++) {bufs}[i][j] = {step};"
            ));
            self.line("  }".into());
            for m in 0..k {
                let name = format!("{bufs}[{m}]");
                self.heap.push(name.clone());
                self.arrays.push(Array {
                    name,
                    ty,
                    len: m + 2,
                    storage: Storage::Heap,
                });
            }
            let m = self.rng.below(k);
            let j = self.index(m + 2);
            self.probe(format!("{bufs}[{m}][{j}]"), ty);
        } else {
            self.classes.push("allocation-in-loop-freed");
            let (total, b) = (self.fresh("total"), self.fresh("b"));
            let m = 2 + self.rng.below(4);
            let c = self.rng.below(m);
            let step = self.step(ty, &v, "i + j");
            self.line(format!("  unsigned long long {total} = 0;"));
            self.line(format!("  for (int i = 0; i < {k}; i++) {{"));
            self.line(format!(
                "    {ty} *{b} = malloc({m} * sizeof({ty})); if (!{b}) return 0;"
            ));
            self.line(format!(
                "    for (int j = 0; j < {m}; j++) {b}[j] = {step};"
            ));
            self.line(format!(
                "    {total} += (unsigned long long){b}[(i + {c}) % {m}];"
            ));
            self.line(format!("    free({b});"));
            self.line("  }".into());
            self.probe(total, CType::U64);
        }
    }

    /// Pointers into arrays of one type stored in an array, written and read through,
    /// copied from one cell to another and compared.
    fn pointer_table(&mut self) {
        self.classes.push("pointer-table");
        let a = self.array();
        let ty = a.ty;
        let b = self.partner(&a).unwrap_or_else(|| a.clone());
        let tab = self.fresh("tab");
        let n = 2 + self.rng.below(3);
        let entries: Vec<String> = (0..n)
            .map(|k| {
                let target = if k % 2 == 0 { &a } else { &b };
                format!("{} + {}", target.name, self.rng.below(target.len))
            })
            .collect();
        self.line(format!(
            "  {ty} *{tab}[{n}] = {{ {} }};",
            entries.join(", ")
        ));
        let i = self.index(n);
        let v = self.value(ty, 1);
        self.line(format!("  *{tab}[{i}] = {v};"));
        let (to, from) = (self.rng.below(n), self.rng.below(n));
        self.line(format!("  {tab}[{to}] = {tab}[{from}];"));
        let w = self.value(ty, 0);
        let j = self.index(n);
        self.line(format!(
            "  *{tab}[{j}] = ({ty})((unsigned long long)*{tab}[{j}] + (unsigned long long)({w}));"
        ));
        let k = self.index(n);
        self.probe(format!("*{tab}[{k}]"), ty);
        self.probe(format!("(int)({tab}[0] == {tab}[1])"), CType::I32);
    }

    /// A cursor kept in a local whose address a helper gets: one that only advances it
    /// (`acc += take(&p, end)` in a loop, the local always points into one array), or one
    /// that may replace it by a pointer into another array (the local does not).
    fn cursor_by_address(&mut self) {
        let a = self.array();
        let (ty, name, len) = (a.ty, a.name.clone(), a.len);
        let (f, p) = (self.fresh("take"), self.fresh("cur"));
        if self.rng.chance(60) {
            self.classes.push("cursor-advanced");
            let c = self.literal(ty);
            let (header, callee) = self.callee_header(
                &f,
                "unsigned long long",
                &format!("const {ty} **pp, const {ty} *end"),
                &format!("const {ty} **, const {ty} *"),
            );
            self.define(
                &f,
                &header,
                format!(
                    "unsigned long long s = 0; while (*pp < end) {{ {ty} v = **pp; (*pp)++; s += (unsigned long long)v; if (v > {c}) break; }} return s;"
                ),
            );
            let (end, acc) = (self.fresh("end"), self.fresh("acc"));
            let bound = self.bound(len);
            self.line(format!(
                "  const {ty} *{p} = {name}, *const {end} = {name} + ({bound});"
            ));
            self.line(format!("  unsigned long long {acc} = 0;"));
            self.line(format!(
                "  for (int r = 0; r < 3 && {p} < {end}; r++) {acc} += {callee}(&{p}, {end});"
            ));
            self.probe(acc, CType::U64);
            self.probe(format!("(long long)({p} - {name})"), CType::I64);
            self.line(format!("  if ({p} < {end}) {{"));
            self.probe(format!("*{p}"), ty);
            self.line("  }".into());
        } else {
            self.classes.push("cursor-replaced");
            let b = self.partner(&a).unwrap_or_else(|| a.clone());
            let (header, callee) = self.callee_header(
                &f,
                "void",
                &format!("const {ty} **pp, const {ty} *to, int c"),
                &format!("const {ty} **, const {ty} *, int"),
            );
            self.define(&f, &header, "if (c) *pp = to;".to_string());
            let (i, k) = (self.rng.below(len), self.rng.below(b.len));
            let cond = self.condition();
            self.line(format!("  const {ty} *{p} = {name} + {i};"));
            self.line(format!(
                "  {callee}(&{p}, {} + {k}, (int)({cond}));",
                b.name
            ));
            self.probe(format!("*{p}"), ty);
        }
    }

    /// A heap buffer freed in the middle of `main`, its pointer set to `NULL`; it leaves
    /// the snippets' arrays, so nothing uses it after.
    fn release(&mut self) {
        self.classes.push("free-early");
        let Some(k) = self.arrays.iter().position(|a| a.storage == Storage::Heap) else {
            return;
        };
        let a = self.arrays.remove(k);
        self.heap.retain(|h| *h != a.name);
        self.line(format!("  free({}); {} = NULL;", a.name, a.name));
        self.probe(format!("(int)({} == NULL)", a.name), CType::I32);
    }
}
