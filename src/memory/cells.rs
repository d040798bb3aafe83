//! The layout of memory: which cells each base has (exact cells at constant offsets, one
//! summary cell for a base accessed at a variable offset, or none), and which bases a
//! write to one may also change ([`Aliasing`]).
//!
//! **Invariant:** a base's cells describe every byte any access of it reads or writes, and
//! two distinct cells of a base never share a byte: exact cells `(offset, type)` when every
//! access is at a constant offset and accesses are equal or disjoint; one summary cell when
//! some access is at a variable offset, all have one type and each offset's congruence
//! (from the address arithmetic, powers of two, exact modulo 2^64) puts it on one grid of
//! that size (array smashing: the cell stands for every element); untracked otherwise
//! (loads arbitrary).

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::ir::{
    BaseId, BaseInfo, BaseKind, BinOp, CastOp, Expr, Function, Inst, MemOp, Operand, Ty, ValueId,
};

/// The largest modulus the congruence of an offset is tracked with (a representation
/// limit: congruences are exact modulo 2^64 and kept in a `u64`).
const MAX_MODULUS: u64 = 1 << 32;

/// The most cells the pass gives one function times its blocks: past it, the bases with
/// the most cells are left untracked (their loads arbitrary), so that the phis stay few.
const MAX_CELL_BLOCKS: usize = 4_000_000;

/// How a base is modeled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Every access is at a constant offset, and two accesses either read the same bytes
    /// with the same type or disjoint bytes: one cell per `(offset, type)`.
    Cells(BTreeMap<(i64, u32), CellId>),
    /// Some access is at a variable offset, every access has the same type and hits one slot
    /// of the same grid of that type's size: one cell summarizes every slot (weak updates).
    Smashed(CellId),
    /// Anything else: loads are arbitrary, stores change nothing tracked.
    Untracked,
}

/// A cell: index into [`Cells::cells`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CellId(pub usize);

/// A cell's base, type and, for an exact cell, its offset.
#[derive(Clone, Debug)]
pub struct Cell {
    pub base: BaseId,
    pub ty: Ty,
    /// `None` for a summary cell.
    pub offset: Option<i64>,
    /// For a summary cell, the slot of its grid: every access's offset is this modulo the
    /// type's size (0 for an exact cell). Two summaries with the same type and slot have
    /// their elements at the same offsets (`copies.rs` relates them).
    pub slot: u64,
}

/// The cells of a function.
pub struct Cells {
    pub layouts: Vec<Layout>,
    pub cells: Vec<Cell>,
}

impl Cells {
    /// The cell a load or store of type `ty` at `offset` of `base` reads or writes, and
    /// whether it is a summary (weak update) cell; `None` when the base is untracked.
    pub fn cell_of(&self, base: BaseId, offset: &Operand, ty: Ty) -> Option<(CellId, bool)> {
        match &self.layouts[base.index()] {
            Layout::Cells(map) => {
                let Operand::Const(c) = offset else {
                    return None;
                };
                map.get(&(c.signed() as i64, ty.width)).map(|&c| (c, false))
            }
            Layout::Smashed(c) => Some((*c, true)),
            Layout::Untracked => None,
        }
    }

    /// A cell's name: its base's, then `@` and its offset (`@*` for a summary).
    pub fn name(&self, c: CellId, bases: &[BaseInfo]) -> String {
        let cell = &self.cells[c.0];
        let base = &bases[cell.base.index()].name;
        match cell.offset {
            Some(off) => format!("{base}@{off}"),
            None => format!("{base}@*"),
        }
    }

    /// Every cell of `base`.
    pub fn cells_of(&self, base: BaseId) -> Vec<CellId> {
        match &self.layouts[base.index()] {
            Layout::Cells(map) => map.values().copied().collect(),
            Layout::Smashed(c) => vec![*c],
            Layout::Untracked => vec![],
        }
    }
}

/// Which bases a write to one may also change: another object the caller gave a pointer
/// into may be the same object, or a global (the caller may pass aliasing pointers).
pub struct Aliasing {
    kinds: Vec<BaseKind>,
}

impl Aliasing {
    pub fn new(func: &Function) -> Aliasing {
        Aliasing {
            kinds: func.bases.iter().map(|b| b.kind).collect(),
        }
    }

    /// The bases a write to `base` may also change: for a pointee every other pointee and
    /// every global, for a global every pointee; never a constant, which nothing writes.
    pub fn aliased_by_write(&self, base: BaseId) -> Vec<BaseId> {
        let kind = self.kinds[base.index()];
        self.kinds
            .iter()
            .enumerate()
            .map(|(i, k)| (BaseId(i as u32), *k))
            .filter(|&(other, other_kind)| {
                other != base
                    && matches!(
                        (kind, other_kind),
                        (BaseKind::Pointee, BaseKind::Pointee | BaseKind::Global)
                            | (BaseKind::Global, BaseKind::Pointee)
                    )
            })
            .map(|(b, _)| b)
            .collect()
    }
}

/// The loads and stores of a function's summary cells, as the choosers of segments read
/// them.
pub struct SummaryAccesses {
    /// Each load of a summary cell: its cell and offset.
    pub loads: HashMap<ValueId, (CellId, Operand)>,
    /// The loads and stores of each summary cell.
    pub counts: HashMap<CellId, usize>,
    /// The cells some store writes a value that is not a constant to.
    pub stored_values: HashSet<CellId>,
}

impl SummaryAccesses {
    pub fn of(func: &Function, cells: &Cells) -> SummaryAccesses {
        let mut acc = SummaryAccesses {
            loads: HashMap::new(),
            counts: HashMap::new(),
            stored_values: HashSet::new(),
        };
        for inst in func.blocks.iter().flat_map(|b| &b.insts) {
            match inst {
                Inst::Mem(MemOp::Load { dest, addr }) => {
                    let ty = func.value(*dest).ty;
                    if let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) {
                        acc.loads.insert(*dest, (c, addr.offset));
                        *acc.counts.entry(c).or_default() += 1;
                    }
                }
                Inst::Mem(MemOp::Store { addr, value }) => {
                    let ty = func.operand_ty(value);
                    if let Some((c, true)) = cells.cell_of(addr.base, &addr.offset, ty) {
                        *acc.counts.entry(c).or_default() += 1;
                        if !matches!(value, Operand::Const(_)) {
                            acc.stored_values.insert(c);
                        }
                    }
                }
                _ => {}
            }
        }
        acc
    }
}

/// The bytes a value of `ty` occupies in memory.
pub fn bytes(ty: Ty) -> u64 {
    (ty.width as u64).div_ceil(8)
}

/// One access: its offset and type.
struct Access {
    offset: Operand,
    ty: Ty,
}

/// Chooses the layout of every base of `func`.
pub fn choose(func: &Function) -> Cells {
    let defs: HashMap<ValueId, &Expr> = func
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match i {
            Inst::Assign { dest, expr } => Some((*dest, expr)),
            _ => None,
        })
        .collect();
    let phis = phi_congruences(func, &defs);
    let mut accesses: Vec<Vec<Access>> = func.bases.iter().map(|_| Vec::new()).collect();
    for b in &func.blocks {
        for inst in &b.insts {
            let (addr, ty) = match inst {
                Inst::Mem(MemOp::Load { dest, addr }) => (addr, func.value(*dest).ty),
                Inst::Mem(MemOp::Store { addr, value }) => (addr, func.operand_ty(value)),
                _ => continue,
            };
            accesses[addr.base.index()].push(Access {
                offset: addr.offset,
                ty,
            });
        }
    }
    let mut layouts: Vec<Option<Vec<ExactKey>>> = Vec::new();
    let mut smashed: Vec<Option<(Ty, u64)>> = Vec::new();
    for list in &accesses {
        let (exact, summary) = match classify(list, func, &defs, &phis) {
            Shape::Exact(keys) => (Some(keys), None),
            Shape::Summary(ty, slot) => (None, Some((ty, slot))),
            Shape::None => (None, None),
        };
        layouts.push(exact);
        smashed.push(summary);
    }
    // Keep the phis few: untrack the bases with the most cells until under the budget.
    let n_blocks = func.blocks.len().max(1);
    loop {
        let n_cells: usize = (0..layouts.len())
            .map(|i| layouts[i].as_ref().map_or(0, Vec::len) + smashed[i].is_some() as usize)
            .sum();
        if n_cells * n_blocks <= MAX_CELL_BLOCKS {
            break;
        }
        let largest = (0..layouts.len())
            .max_by_key(|&i| {
                layouts[i].as_ref().map_or(0, Vec::len) + smashed[i].is_some() as usize
            })
            .expect("some base has cells");
        layouts[largest] = None;
        smashed[largest] = None;
    }
    let mut cells = Vec::new();
    let mut res = Vec::new();
    for (i, (exact, summary)) in layouts.into_iter().zip(smashed).enumerate() {
        let base = BaseId(i as u32);
        let layout = match (exact, summary) {
            (Some(keys), _) => {
                let mut map = BTreeMap::new();
                for (key, ty) in keys {
                    map.entry(key).or_insert_with(|| {
                        cells.push(Cell {
                            base,
                            ty,
                            offset: Some(key.0),
                            slot: 0,
                        });
                        CellId(cells.len() - 1)
                    });
                }
                Layout::Cells(map)
            }
            (None, Some((ty, slot))) => {
                cells.push(Cell {
                    base,
                    ty,
                    offset: None,
                    slot,
                });
                Layout::Smashed(CellId(cells.len() - 1))
            }
            (None, None) => Layout::Untracked,
        };
        res.push(layout);
    }
    Cells {
        layouts: res,
        cells,
    }
}

/// An exact cell: its offset and width, and its type.
type ExactKey = ((i64, u32), Ty);

enum Shape {
    Exact(Vec<ExactKey>),
    /// The type and the slot of the grid.
    Summary(Ty, u64),
    None,
}

fn classify(
    list: &[Access],
    func: &Function,
    defs: &HashMap<ValueId, &Expr>,
    phis: &HashMap<ValueId, (u64, u64)>,
) -> Shape {
    if list.is_empty() {
        return Shape::Exact(vec![]);
    }
    let constant: Option<Vec<ExactKey>> = list
        .iter()
        .map(|a| match a.offset {
            Operand::Const(c) => Some(((c.signed() as i64, a.ty.width), a.ty)),
            _ => None,
        })
        .collect();
    if let Some(mut keys) = constant {
        keys.sort_by_key(|k| k.0);
        keys.dedup_by_key(|k| k.0);
        // Distinct keys must cover disjoint bytes: sorted by offset, each ends before the
        // next starts (two types at one offset overlap).
        let disjoint = keys.windows(2).all(|w| {
            let ((o1, _), t1) = w[0];
            let ((o2, _), _) = w[1];
            (o1 as i128) + bytes(t1) as i128 <= o2 as i128
        });
        return if disjoint {
            Shape::Exact(keys)
        } else {
            Shape::None
        };
    }
    let ty = list[0].ty;
    if list.iter().any(|a| a.ty != ty) {
        return Shape::None;
    }
    let size = bytes(ty);
    let mut grid = None;
    for a in list {
        let (residue, modulus) = congruence(&a.offset, func, defs, phis, 0);
        if modulus % size != 0 {
            return Shape::None;
        }
        let slot = residue % size;
        if *grid.get_or_insert(slot) != slot {
            return Shape::None;
        }
    }
    Shape::Summary(ty, grid.unwrap_or(0))
}

/// A congruence not known yet: a phi whose incoming values were not all seen
/// ([`phi_congruences`]); it absorbs every operation and is left out of a meet.
const UNSEEN: (u64, u64) = (0, 0);

/// The congruence of both `(r1, m1)` and `(r2, m2)`: the largest power-of-two modulus
/// dividing both moduli and the residues' difference.
fn meet((r1, m1): (u64, u64), (r2, m2): (u64, u64)) -> (u64, u64) {
    if m1 == 0 {
        return (r2, m2);
    }
    if m2 == 0 {
        return (r1, m1);
    }
    let mut m = m1.min(m2);
    let d = (r1 % m + m - r2 % m) % m;
    if d != 0 {
        m = m.min(1 << d.trailing_zeros());
    }
    (r1 % m, m)
}

/// The congruence of every phi (edge move destination) of `func`: a fixpoint from
/// [`UNSEEN`] down, each phi the meet of its incoming operands (`p = base; p += 4` is
/// `0 mod 4`). A phi never seen (a cycle no value enters) is unknown.
fn phi_congruences(
    func: &Function,
    defs: &HashMap<ValueId, &Expr>,
) -> HashMap<ValueId, (u64, u64)> {
    let mut incoming: BTreeMap<ValueId, Vec<Operand>> = BTreeMap::new();
    for b in &func.blocks {
        for e in b.term.edges() {
            for (dest, op) in &e.moves {
                incoming.entry(*dest).or_default().push(*op);
            }
        }
    }
    let mut phis: HashMap<ValueId, (u64, u64)> = incoming.keys().map(|v| (*v, UNSEEN)).collect();
    // Each round lowers some modulus or sees a phi: bounded by the lattice's height.
    for _ in 0..(34 * incoming.len() + 1) {
        let mut changed = false;
        for (v, ops) in &incoming {
            let new = ops
                .iter()
                .map(|op| congruence(op, func, defs, &phis, 0))
                .fold(UNSEEN, meet);
            if new != phis[v] {
                phis.insert(*v, new);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for c in phis.values_mut() {
        if c.1 == 0 {
            *c = (0, 1);
        }
    }
    phis
}

/// `(r, m)` with `m` a power of two: every value of the `i64` operand is `r` modulo `m`.
/// Exact modulo 2^64, so wrap-around keeps it (for `m` up to [`MAX_MODULUS`]). A phi
/// has the congruence `phis` gives it ([`UNSEEN`] while its fixpoint is being computed).
fn congruence(
    op: &Operand,
    func: &Function,
    defs: &HashMap<ValueId, &Expr>,
    phis: &HashMap<ValueId, (u64, u64)>,
    depth: u32,
) -> (u64, u64) {
    let unknown = (0, 1);
    let v = match op {
        Operand::Const(c) => return (c.bits as u64 % MAX_MODULUS, MAX_MODULUS),
        Operand::Undef(_) => return unknown,
        Operand::Value(v) => *v,
    };
    if depth > 16 {
        return unknown;
    }
    let Some(expr) = defs.get(&v) else {
        return phis.get(&v).copied().unwrap_or(unknown);
    };
    let sub = |op: &Operand| congruence(op, func, defs, phis, depth + 1);
    let combine = |(r1, m1): (u64, u64), (r2, m2): (u64, u64), negate: bool| {
        if m1 == 0 || m2 == 0 {
            return UNSEEN;
        }
        let m = m1.min(m2);
        let r = if negate {
            (r1 % m + m - r2 % m) % m
        } else {
            (r1 % m + r2 % m) % m
        };
        (r, m)
    };
    match expr {
        Expr::Use(a) => sub(a),
        Expr::Binary { op, lhs, rhs, .. } => match op {
            BinOp::Add => combine(sub(lhs), sub(rhs), false),
            BinOp::Sub => combine(sub(lhs), sub(rhs), true),
            BinOp::Mul => {
                let (a, b) = (sub(lhs), sub(rhs));
                if a.1 == 0 || b.1 == 0 {
                    return UNSEEN;
                }
                // A product is a multiple of each factor's power-of-two part when that
                // factor is known exactly.
                let pow2 = |(r, m): (u64, u64)| {
                    if m == MAX_MODULUS {
                        if r == 0 {
                            MAX_MODULUS
                        } else {
                            1u64 << r.trailing_zeros()
                        }
                    } else {
                        1
                    }
                };
                (0, pow2(a).max(pow2(b)))
            }
            BinOp::Shl => match rhs {
                Operand::Const(k) if k.bits < 32 => (0, 1u64 << k.bits),
                _ => unknown,
            },
            _ => unknown,
        },
        Expr::Cast { op, arg } => {
            let (r, m) = sub(arg);
            if m == 0 {
                return UNSEEN;
            }
            let w = match op {
                CastOp::SExt | CastOp::ZExt => match arg {
                    Operand::Value(a) => Some(func.value(*a).ty.width),
                    Operand::Const(c) => Some(c.ty.width),
                    Operand::Undef(_) => None,
                },
                CastOp::Trunc => None,
            };
            match w {
                Some(w) if w < 32 => {
                    let m = m.min(1u64 << w);
                    (r % m, m)
                }
                Some(_) => (r, m),
                None => unknown,
            }
        }
        _ => unknown,
    }
}
