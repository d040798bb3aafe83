//! The phis of the tracked quantities (the value of each cell, the bounds of each segment)
//! and the last phase of the lowering: a phi per track at every block but the entry,
//! filled by moves on the incoming edges; the trivial ones removed (Braun et al., "Simple
//! and Efficient Construction of Static Single Assignment Form", 2013) and the dead ones
//! never materialized ([`Phis::finish`]).
//!
//! **Invariant:** a phi's value at the start of its block is the value its track has at
//! the end of the incoming edge's block, on every edge; replacing a phi whose incoming
//! values are all one value (or itself) by that value keeps it.

use super::cells::CellId;
use super::emit::{Sym, SymExpr};
use super::output::{fresh, Output, Pending};
use crate::ir::{
    ArithFlags, BinOp, BlockId, CmpPred, Expr, Function, Inst, Operand, SourceLoc, Ty, ValueId,
    ValueInfo,
};

/// A tracked quantity: the value of a cell, or one bound of a segment (numbered over every
/// kind's segments, `registry.rs`).
#[derive(Clone, Copy, Debug)]
pub enum Track {
    Cell(CellId),
    Lo(usize),
    Hi(usize),
}

struct Phi {
    track: Track,
    /// The incoming value of each incoming edge.
    incoming: Vec<Sym>,
}

/// A move into a phi, on edge `edge` of block `block`.
struct Move {
    block: usize,
    edge: usize,
    phi: usize,
    sym: Sym,
}

/// The phis of a function under construction.
pub struct Phis {
    phis: Vec<Phi>,
    /// Each block's phis, one per track in the order of the tracks.
    of_block: Vec<Vec<usize>>,
    moves: Vec<Move>,
}

impl Phis {
    /// One phi per track (in the order of `tracks`) at every block but the entry.
    pub fn new(func: &Function, tracks: &[Track]) -> Phis {
        let mut phis = Vec::new();
        let mut of_block = vec![Vec::new(); func.blocks.len()];
        for (b, slots) in of_block.iter_mut().enumerate() {
            if BlockId(b as u32) == func.entry {
                continue;
            }
            for &track in tracks {
                slots.push(phis.len());
                phis.push(Phi {
                    track,
                    incoming: Vec::new(),
                });
            }
        }
        Phis {
            phis,
            of_block,
            moves: Vec::new(),
        }
    }

    /// The values of the tracks at the start of `block` (not the entry): its phis.
    pub fn at_start(&self, block: usize) -> Vec<Sym> {
        self.of_block[block].iter().map(|&p| Sym::Phi(p)).collect()
    }

    /// The values of the tracks at the end of `block` (in the order of the tracks) flow
    /// into the phis of each of its successors (one per edge, in the order of the edges).
    pub fn leave(&mut self, block: usize, successors: &[BlockId], values: &[Sym]) {
        for (e, target) in successors.iter().enumerate() {
            let target = target.index();
            for (t, sym) in values.iter().enumerate() {
                let phi = self.of_block[target][t];
                self.phis[phi].incoming.push(*sym);
                self.moves.push(Move {
                    block,
                    edge: e,
                    phi,
                    sym: *sym,
                });
            }
        }
    }

    /// The function with every block's output, its live phis as moves on the edges, and
    /// neither memory operations nor bases; `ty` and `name` give a track's type and name.
    pub fn finish(
        self,
        func: Function,
        mut values: Vec<ValueInfo>,
        blocks: Vec<Output>,
        ty: &dyn Fn(Track) -> Ty,
        name: &dyn Fn(Track) -> String,
    ) -> Function {
        let replaced = self.trivial(ty);
        let live = self.live(&blocks, &replaced);
        let mut phi_value: Vec<Option<ValueId>> = vec![None; self.phis.len()];
        for p in 0..self.phis.len() {
            if live[p] && replaced[p].is_none() {
                let track = self.phis[p].track;
                phi_value[p] = Some(fresh(&mut values, ty(track), name(track)));
            }
        }
        let operand = |s: Sym| match resolve(&replaced, s) {
            Sym::Op(op) => op,
            Sym::Phi(p) => Operand::Value(phi_value[p].expect("a live phi has a value")),
        };
        let mut out = Function {
            values,
            bases: vec![],
            ..func
        };
        for (block, pending) in out.blocks.iter_mut().zip(blocks) {
            let (insts, locs): (Vec<Inst>, Vec<Option<SourceLoc>>) = pending
                .into_iter()
                .map(|(p, loc)| (materialize(p, &operand), loc))
                .unzip();
            block.insts = insts;
            block.locs = locs;
        }
        for m in self.moves {
            if let Some(dest) = phi_value[m.phi] {
                let src = operand(m.sym);
                out.blocks[m.block].term.edges_mut()[m.edge]
                    .moves
                    .push((dest, src));
            }
        }
        out
    }

    /// What each trivial phi stands for: all incoming values the same, up to the phi
    /// itself (`undef` of its type when it has no other).
    fn trivial(&self, ty: &dyn Fn(Track) -> Ty) -> Vec<Option<Sym>> {
        let mut replaced: Vec<Option<Sym>> = vec![None; self.phis.len()];
        loop {
            let mut changed = false;
            for p in 0..self.phis.len() {
                if replaced[p].is_some() {
                    continue;
                }
                let mut unique: Option<Sym> = None;
                let mut trivial = true;
                for &s in &self.phis[p].incoming {
                    let s = resolve(&replaced, s);
                    if s == Sym::Phi(p) || unique == Some(s) {
                        continue;
                    }
                    if unique.is_some() {
                        trivial = false;
                        break;
                    }
                    unique = Some(s);
                }
                if trivial {
                    let undef = Operand::Undef(ty(self.phis[p].track));
                    replaced[p] = Some(unique.unwrap_or(Sym::Op(undef)));
                    changed = true;
                }
            }
            if !changed {
                return replaced;
            }
        }
    }

    /// The live phis: read by an instruction of the output, or moved into a live phi.
    fn live(&self, blocks: &[Output], replaced: &[Option<Sym>]) -> Vec<bool> {
        let mut live = vec![false; self.phis.len()];
        let mut work = Vec::new();
        for (pending, _) in blocks.iter().flatten() {
            let syms = match pending {
                Pending::Load { sym, .. } => vec![*sym],
                Pending::Assign { expr, .. } => expr.syms(),
                Pending::Assume(sym) => vec![*sym],
                Pending::Keep(_) => continue,
            };
            for sym in syms {
                if let Sym::Phi(p) = resolve(replaced, sym) {
                    if !live[p] {
                        live[p] = true;
                        work.push(p);
                    }
                }
            }
        }
        while let Some(p) = work.pop() {
            for &s in &self.phis[p].incoming {
                if let Sym::Phi(q) = resolve(replaced, s) {
                    if !live[q] {
                        live[q] = true;
                        work.push(q);
                    }
                }
            }
        }
        live
    }
}

/// What `s` stands for once the trivial phis are replaced.
fn resolve(replaced: &[Option<Sym>], mut s: Sym) -> Sym {
    loop {
        match s {
            Sym::Phi(p) => match replaced[p] {
                Some(next) => s = next,
                None => return s,
            },
            op => return op,
        }
    }
}

/// The instruction of a pending one, its values final (`operand`).
fn materialize(p: Pending, operand: &dyn Fn(Sym) -> Operand) -> Inst {
    match p {
        Pending::Keep(inst) => inst,
        Pending::Load { dest, sym } => Inst::Assign {
            dest,
            expr: Expr::Use(operand(sym)),
        },
        Pending::Assume(sym) => Inst::Assume { cond: operand(sym) },
        Pending::Assign { dest, expr } => Inst::Assign {
            dest,
            expr: match expr {
                SymExpr::Less(a, b) => Expr::Cmp {
                    pred: CmpPred::Slt,
                    lhs: operand(a),
                    rhs: operand(b),
                },
                SymExpr::Equal(a, b) => Expr::Cmp {
                    pred: CmpPred::Eq,
                    lhs: operand(a),
                    rhs: operand(b),
                },
                SymExpr::Add(a, b) => Expr::Binary {
                    op: BinOp::Add,
                    lhs: operand(a),
                    rhs: operand(b),
                    flags: ArithFlags::default(),
                },
                SymExpr::Select(c, t, f) => Expr::Select {
                    cond: operand(c),
                    on_true: operand(t),
                    on_false: operand(f),
                },
            },
        },
    }
}
