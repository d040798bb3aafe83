//! The memory model: turns the memory operations the lifter emits (loads, stores,
//! initializers and clobbers of bases at byte offsets, see `ir::MemOp`) into scalar values
//! and havocs, what SROA does for locals, extended to globals, pointer parameters and
//! arrays.
//!
//! **Architecture Invariant:** the only module that reads an `ir::MemOp`. Its output has
//! no memory operation and no base (`ir::verify_scalar`), so no engine, solver formula,
//! bounded search, replay or reading ever sees memory; a function it cannot lower is
//! [`erase`]d (every load arbitrary), never passed on with memory in it. Every value a
//! lowered load reads is one the loaded bytes may hold on that execution: the lowering
//! only ever forgets what memory holds, never invents it.
//!
//! The phases (`ssa::lower`), each a module with one job:
//! 1. layout (`cells.rs`): each base has exact cells at constant offsets, or one summary
//!    cell for every element when it is accessed at a variable offset, or is untracked
//!    (loads arbitrary); `cells::Aliasing` says which bases a write may also change (the
//!    caller may pass aliasing pointers);
//! 2. numbering (`memo.rs`): value numbers of offsets, and the memo of the elements a
//!    block has read or written;
//! 3. segment choice (`registry.rs`): each segment kind's segments, and which kind wins;
//! 4. rewriting (`ssa.rs`): SSA over cells and segment bounds, block by block, with the
//!    value sets of summary cells (`values.rs`), the definitions available for reuse
//!    (`available.rs`) and the instructions emitted (`output.rs`);
//! 5. phis (`phis.rs`), then the cleanup of what the lowering left dead (`cleanup.rs`).
//!
//! **Segments.** A summary cell alone says nothing of its elements; a *segment* says that a
//! property `P(element, offset)` holds on a range `[lo, hi)` of byte offsets, the bounds
//! being ordinary values that the engines relate to the loop counters. Each family of
//! properties is a [`kind::SegmentKind`] (the anchors are the array domains of Crab,
//! `array_load`/`array_store`/`array_init`, and IKOS's `mem_read`/`mem_write`): it chooses
//! its segments for a function, says what a load reads inside them, how a store, an
//! initializer or a clobber moves their bounds, and which facts to assume. The kinds:
//! constants (`segments.rs`), copies of another cell (`copies.rs`), conditions of
//! assertions over one cell (`predicates.rs`) or two (`pairs.rs`), polynomials of the
//! index (`contents.rs`). The updates they share, and the proof that they keep the
//! invariant "every element in `[lo, hi)` satisfies `P`", are in `bounds.rs`; the module
//! of each kind proves its own part.
//!
//! **Room for pointers.** A pointer-valued cell would be a cell whose track holds, beside
//! the address's offset (an `i64` in the numeric domain, as every cell value is), the set
//! of bases it may point into: `cells.rs` would give a base a cell of pointer type where
//! the lifter today gives arbitrary loads, and a load through a loaded pointer would read
//! the cells of each base of the set (a weak read, as for summaries). An object's size
//! would be one more track per base (like a segment's bounds, an `i64` the engines
//! relate to the program's values): a memory-safety check of an access is then a
//! comparison of its offset with that track, emitted by the rewriting phase as a branch
//! to an error site, and a summary of a callee's memory effects is a clobber of the bases
//! it may write, refined by the segments it keeps (`SegmentKind::describes`).

mod available;
mod bounds;
mod cells;
mod cleanup;
mod conditions;
mod contents;
mod copies;
mod emit;
mod kind;
mod memo;
mod output;
mod pairs;
mod phis;
mod poly;
mod predicates;
mod registry;
mod segments;
mod ssa;
mod values;

use crate::ir::pass::Pass;
use crate::ir::{Function, HavocReason, Inst, MemOp};

/// The pass: memory operations become scalar values and havocs.
pub struct MemoryToValues;

impl Pass for MemoryToValues {
    fn name(&self) -> &'static str {
        "memory-to-values"
    }

    fn invariant(&self) -> &'static str {
        "no memory operation and no base is left: loads are values of cells or arbitrary"
    }

    fn run(&self, func: Function) -> Function {
        lower(func)
    }

    fn lowers_memory(&self) -> bool {
        true
    }
}

/// Lowers the memory operations of `func` (see the module documentation); a function
/// without any is returned as it is.
pub fn lower(func: Function) -> Function {
    if func.bases.is_empty() && !func.has_memory() {
        return func;
    }
    let lowered = match ssa::lower(func.clone()) {
        Some(f) if !f.has_memory() => f,
        _ => erase(func),
    };
    cleanup::compact(cleanup::remove_dead(lowered))
}

/// The coarsest lowering: every load is arbitrary, stores and clobbers are dropped. Sound
/// for any function; the frontend uses it when the memory pass fails.
pub fn erase(mut func: Function) -> Function {
    func.bases.clear();
    for block in &mut func.blocks {
        let insts = std::mem::take(&mut block.insts);
        let locs = std::mem::take(&mut block.locs);
        for (inst, loc) in insts.into_iter().zip(locs) {
            let inst = match inst {
                Inst::Mem(MemOp::Load { dest, .. }) => Inst::Havoc {
                    dest,
                    reason: HavocReason::Load,
                },
                Inst::Mem(_) => continue,
                other => other,
            };
            block.insts.push(inst);
            block.locs.push(loc);
        }
    }
    func
}
