//! The memory-safety checks (`--checks memory`), error sites the lifter adds before each
//! access through a pointer:
//!
//! - `OutOfBounds` before each load, store, `llvm.memcpy`/`memmove`/`memset`: an access of
//!   `w` bytes at offset `o` of an object of `s` bytes needs `0 <= o` and `o <= s - w`
//!   (with `0 <= w` and `0 <= s` when they are values, so that `s - w` does not wrap).
//!   A pointer that is not described, or an object of unknown size, gives an arbitrary
//!   condition: the check stays unknown, with a warning that says why.
//! - `UseAfterFree` before each access into an object `malloc`/`calloc` returned: each such
//!   base has a *liveness cell* (a one-byte base of its own) set to 1 at the allocation and
//!   to 0 by `free`; a call of code the lifter does not see makes it arbitrary, since that
//!   code may free the object.
//! - `InvalidFree` at `free(p)`: `p` at offset 0 of a live allocated object; a local or a
//!   global is never freeable; `free(NULL)` is fine; any other pointer is unknown.
//!
//! - `UninitPointer` instead of all of these for an access through a pointer derived from
//!   an uninitialized pointer local (`memory.rs` gives it a base of its own): undefined
//!   whatever the value, so the check fails wherever it is reached.
//! - `NullDeref` before each access through a pointer into a pointer parameter's object: the
//!   parameter is not `NULL` (`null.rs`). An allocation is assumed to succeed (see
//!   `sizes.rs`), and pointers into locals and globals are never null.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::LLVMStoreSizeOfType;

use super::Lifter;
use crate::frontend::raw;
use crate::ir::{
    Address, BaseId, BaseInfo, BaseKind, BinOp, CheckKind, CmpPred, Const, Expr, HavocReason, Inst,
    MemOp, ObjectSize, Operand, SourceLoc, Ty,
};

const I64: Ty = Ty { width: 64 };
const BYTE: Ty = Ty { width: 8 };

fn const_i64(value: i128) -> Operand {
    Operand::Const(Const::new(I64, value))
}

/// `read of 4 bytes`, `write of 1 byte`.
fn access_text(verb: &str, bytes: u64) -> String {
    let unit = if bytes == 1 { "byte" } else { "bytes" };
    format!("{verb} of {bytes} {unit}")
}

impl Lifter {
    /// A new `i1` value `lhs pred rhs`.
    pub(super) fn compare(
        &mut self,
        piece: usize,
        pred: CmpPred,
        lhs: Operand,
        rhs: Operand,
        loc: &Option<SourceLoc>,
    ) -> Operand {
        let dest = self.synthetic_value(Ty::BOOL, "bound");
        let expr = Expr::Cmp { pred, lhs, rhs };
        self.push(piece, Inst::Assign { dest, expr }, loc.clone());
        Operand::Value(dest)
    }

    /// A new value `lhs op rhs`, of the operands' type `ty`.
    pub(super) fn binary(
        &mut self,
        piece: usize,
        op: BinOp,
        (lhs, rhs): (Operand, Operand),
        ty: Ty,
        loc: &Option<SourceLoc>,
    ) -> Operand {
        let dest = self.synthetic_value(ty, "bound");
        let expr = Expr::Binary {
            op,
            lhs,
            rhs,
            flags: Default::default(),
        };
        self.push(piece, Inst::Assign { dest, expr }, loc.clone());
        Operand::Value(dest)
    }

    /// The conjunction of `conds` (true when empty).
    /// The negation of the boolean `x`.
    pub(super) fn not(&mut self, piece: usize, x: Operand, loc: &Option<SourceLoc>) -> Operand {
        let t = Operand::Const(Const::bool(true));
        self.binary(piece, BinOp::Xor, (x, t), Ty::BOOL, loc)
    }

    fn all(&mut self, piece: usize, conds: Vec<Operand>, loc: &Option<SourceLoc>) -> Operand {
        let mut it = conds.into_iter();
        let Some(first) = it.next() else {
            return Operand::Const(Const::bool(true));
        };
        it.fold(first, |acc, c| {
            self.binary(piece, BinOp::And, (acc, c), Ty::BOOL, loc)
        })
    }

    /// `len` bytes from `addr` lie inside its object, when the object's size is known.
    fn inside(
        &mut self,
        piece: usize,
        addr: &Address,
        len: Operand,
        loc: &Option<SourceLoc>,
    ) -> Option<Operand> {
        let info = &self.memory.bases[addr.base.index()];
        let (size, param) = match info.size {
            ObjectSize::Unknown => return None,
            ObjectSize::Bytes(n) => (const_i64(n as i128), false),
            ObjectSize::Value(v) => (Operand::Value(v), info.kind == BaseKind::Pointee),
        };
        let zero = const_i64(0);
        let mut conds = vec![self.compare(piece, CmpPred::Sge, addr.offset, zero, loc)];
        // A pointer parameter's size is assumed `>= 0` at the entry.
        let size_checked = if param { None } else { Some(size) };
        for value in [Some(len), size_checked].into_iter().flatten() {
            if !matches!(value, Operand::Const(_)) {
                conds.push(self.compare(piece, CmpPred::Sge, value, zero, loc));
            }
        }
        // A constant offset (a field) compares the size itself with the access's end, so
        // that a domain without relations bounds the size where the check fails.
        let end = match (addr.offset, len) {
            (Operand::Const(o), Operand::Const(l)) => i64::try_from(o.signed() + l.signed()).ok(),
            _ => None,
        };
        if let (Some(end), Operand::Value(_)) = (end, size) {
            conds.push(self.compare(piece, CmpPred::Sge, size, const_i64(end.into()), loc));
            return Some(self.all(piece, conds, loc));
        }
        let room = match (size, len) {
            (Operand::Const(s), Operand::Const(l)) => const_i64(s.signed() - l.signed()),
            (_, Operand::Const(l)) if param => self.param_room(addr.base, size, l.signed()),
            _ => self.binary(piece, BinOp::Sub, (size, len), I64, loc),
        };
        conds.push(self.compare(piece, CmpPred::Sle, addr.offset, room, loc));
        Some(self.all(piece, conds, loc))
    }

    /// `size - width` of a pointer parameter's base, computed once at the entry (piece 0,
    /// which dominates every access) and shared by its accesses of that width: one value
    /// instead of one per access, for the domains to track.
    fn param_room(&mut self, base: BaseId, size: Operand, width: i128) -> Operand {
        if let Some(v) = self.memory.room.get(&(base, width)) {
            return Operand::Value(*v);
        }
        let room = self.binary(0, BinOp::Sub, (size, const_i64(width)), I64, &None);
        if let Operand::Value(v) = room {
            self.memory.room.insert((base, width), v);
        }
        room
    }

    /// An arbitrary condition of a check the memory model cannot decide: a havoc whose reason
    /// names `what` (not an `undef`, so that a run through it reads nothing uninitialized).
    fn not_modeled(&mut self, piece: usize, what: &str, loc: &Option<SourceLoc>) -> Operand {
        let reason = HavocReason::Unsupported {
            what: format!("{what} the memory model does not describe"),
        };
        self.arbitrary_condition(piece, reason, loc)
    }

    /// A havoc of a check's condition, for `reason`.
    fn arbitrary_condition(
        &mut self,
        piece: usize,
        reason: HavocReason,
        loc: &Option<SourceLoc>,
    ) -> Operand {
        let dest = self.synthetic_value(Ty::BOOL, "unchecked");
        self.push(piece, Inst::Havoc { dest, reason }, loc.clone());
        Operand::Value(dest)
    }

    /// The liveness cell of a heap base, when it has one.
    fn live_cell(&self, base: BaseId) -> Option<Address> {
        let cell = *self.memory.live.get(&base)?;
        Some(Address {
            base: cell,
            offset: const_i64(0),
        })
    }

    /// Gives each allocated object's base a liveness cell (`--checks memory` only).
    pub(super) fn collect_live_cells(&mut self) {
        if !self.memory_checks {
            return;
        }
        let mut heap: Vec<BaseId> = self.memory.heap.values().map(|(b, _)| *b).collect();
        heap.sort();
        for base in heap {
            let cell = BaseId(self.memory.bases.len() as u32);
            let name = format!("live.{}", self.memory.bases[base.index()].name);
            self.memory.bases.push(BaseInfo {
                kind: BaseKind::Local,
                name,
                size: ObjectSize::Bytes(1),
            });
            self.memory.live.insert(base, cell);
        }
    }

    /// Sets the liveness cell of `base` (an allocation: 1; a `free`: 0).
    pub(super) fn set_live(
        &mut self,
        piece: usize,
        base: BaseId,
        live: bool,
        loc: &Option<SourceLoc>,
    ) {
        if let Some(addr) = self.live_cell(base) {
            let value = Operand::Const(Const::new(BYTE, live as i128));
            self.push(piece, Inst::Mem(MemOp::Store { addr, value }), loc.clone());
        }
    }

    /// The liveness cells of the allocated objects other code may reach (and free).
    pub(super) fn reachable_live_cells(&self) -> Vec<BaseId> {
        let mut cells: Vec<BaseId> = self
            .memory
            .reachable
            .iter()
            .filter_map(|b| self.memory.live.get(b).copied())
            .collect();
        cells.sort();
        cells
    }

    /// Every object other code may reach may be freed (a `realloc`).
    pub(super) fn clobber_live_cells(&mut self, piece: usize, loc: &Option<SourceLoc>) {
        let cells = self.reachable_live_cells();
        if !cells.is_empty() {
            self.push(
                piece,
                Inst::Mem(MemOp::Clobber { bases: cells }),
                loc.clone(),
            );
        }
    }

    /// `base`'s object is live: its liveness cell holds 1.
    pub(super) fn is_live(
        &mut self,
        piece: usize,
        base: BaseId,
        loc: &Option<SourceLoc>,
    ) -> Option<Operand> {
        let addr = self.live_cell(base)?;
        let dest = self.synthetic_value(BYTE, "live");
        self.push(piece, Inst::Mem(MemOp::Load { dest, addr }), loc.clone());
        let zero = Operand::Const(Const::new(BYTE, 0));
        Some(self.compare(piece, CmpPred::Ne, Operand::Value(dest), zero, loc))
    }

    /// Adds the checks of an access of `len` bytes (an `i64`) through each of `ptrs`:
    /// inside the object, and the object not freed.
    fn check_access(
        &mut self,
        current: &mut usize,
        ptrs: &[LLVMValueRef],
        len: Operand,
        access: String,
        loc: &Option<SourceLoc>,
    ) {
        // An access without a source location was added by the front end (the
        // initialization of globals at the start of `main`), not written by the program.
        if !self.memory_checks || loc.is_none() {
            return;
        }
        let piece = *current;
        // Through an uninitialized pointer every access is undefined, whatever its value: the
        // path ends at the check (no other check of the access is asked).
        let uninit = ptrs.iter().any(|p| {
            self.address(*p)
                .is_some_and(|a| self.memory.indeterminate.contains(&a.base))
        });
        if uninit {
            let check = self.new_check(CheckKind::UninitPointer { access }, loc.clone());
            let never = Operand::Const(Const::bool(false));
            self.split_on_check(current, never, check, loc.clone(), loc, "uninit");
            return;
        }
        let mut bounds = Vec::new();
        let mut alive = Vec::new();
        let mut not_null = Vec::new();
        let mut described = true;
        for &ptr in ptrs {
            let Some(addr) = self.address(ptr) else {
                described = false;
                continue;
            };
            if let Some(cond) = self.not_null(piece, &addr, loc) {
                not_null.push(cond);
            }
            match self.inside(piece, &addr, len, loc) {
                Some(cond) => bounds.push(cond),
                None => described = false,
            }
            if let Some(cond) = self.is_live(piece, addr.base, loc) {
                alive.push(cond);
            }
        }
        let bounds = if described {
            self.all(piece, bounds, loc)
        } else {
            self.warn(
                "access through a pointer whose object or size the memory model does not describe: its bounds are not checked"
                    .into(),
                loc.clone(),
            );
            self.arbitrary_condition(piece, HavocReason::UnknownBounds, loc)
        };
        if !not_null.is_empty() {
            let cond = self.all(piece, not_null, loc);
            let kind = CheckKind::NullDeref {
                access: access.clone(),
            };
            let check = self.new_check(kind, loc.clone());
            self.split_on_check(current, cond, check, loc.clone(), loc, "null");
        }
        if !alive.is_empty() {
            let cond = self.all(piece, alive, loc);
            let kind = CheckKind::UseAfterFree {
                access: access.clone(),
            };
            let check = self.new_check(kind, loc.clone());
            self.split_on_check(current, cond, check, loc.clone(), loc, "live");
        }
        let check = self.new_check(CheckKind::OutOfBounds { access }, loc.clone());
        self.split_on_check(current, bounds, check, loc.clone(), loc, "bounds");
    }

    /// The checks of a load or store `inst` (`--checks memory`).
    pub(super) fn check_load_store(
        &mut self,
        current: &mut usize,
        inst: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) {
        let Some(target) = self.memory.target else {
            return;
        };
        let is_load = raw::opcode(inst) == inkwell::llvm_sys::LLVMOpcode::LLVMLoad;
        let (ptr, ty, verb) = if is_load {
            (raw::operand(inst, 0), raw::type_of(inst), "read")
        } else {
            (
                raw::operand(inst, 1),
                raw::type_of(raw::operand(inst, 0)),
                "write",
            )
        };
        if super::memory::is_keep_sink(ptr) {
            return;
        }
        let bytes = unsafe { LLVMStoreSizeOfType(target, ty) };
        let access = access_text(verb, bytes);
        self.check_access(current, &[ptr], const_i64(bytes as i128), access, loc);
    }

    /// The checks of `llvm.memcpy`, `llvm.memmove` and `llvm.memset` (`--checks memory`).
    pub(super) fn check_memory_intrinsic(
        &mut self,
        current: &mut usize,
        inst: LLVMValueRef,
        name: &str,
        loc: &Option<SourceLoc>,
    ) {
        let family = ["memcpy", "memmove", "memset"]
            .into_iter()
            .find(|f| name.starts_with(&format!("llvm.{f}.")));
        let Some(family) = family else {
            return;
        };
        let ptrs = if family == "memset" {
            vec![raw::operand(inst, 0)]
        } else {
            vec![raw::operand(inst, 0), raw::operand(inst, 1)]
        };
        let len = raw::operand(inst, 2);
        let len = match (raw::const_int_bits(len), raw::int_width(raw::type_of(len))) {
            (Some(n), _) if n <= i64::MAX as u64 => const_i64(n as i128),
            (None, Some(w)) if w < 64 => {
                let piece = *current;
                let Some(arg) = self.operand(len, loc) else {
                    return;
                };
                let wide = self.synthetic_value(I64, "length");
                let expr = Expr::Cast {
                    op: crate::ir::CastOp::ZExt,
                    arg,
                };
                self.push(piece, Inst::Assign { dest: wide, expr }, loc.clone());
                Operand::Value(wide)
            }
            (None, Some(64)) => match self.operand(len, loc) {
                Some(arg) => arg,
                None => return,
            },
            _ => Operand::Undef(I64),
        };
        self.check_access(current, &ptrs, len, family.to_string(), loc);
    }

    /// `free(p)` (`--checks memory`): the check that `p` is `NULL` or the start of a live
    /// allocated object, then the object is dead. Without the checks, only what any call of
    /// an allocation function does where another thread may run
    /// ([`Self::synchronize_allocation`]).
    pub(super) fn lift_free(
        &mut self,
        current: &mut usize,
        inst: LLVMValueRef,
        loc: &Option<SourceLoc>,
    ) {
        if !self.memory_checks || raw::num_args(inst) != 1 {
            return self.synchronize_allocation(*current, loc);
        }
        let ptr = raw::operand(inst, 0);
        if unsafe { !LLVMIsAConstantPointerNull(ptr).is_null() } {
            return self.synchronize_allocation(*current, loc);
        }
        let piece = *current;
        let addr = self.address(ptr);
        let cond = match &addr {
            Some(addr) if self.memory.live.contains_key(&addr.base) => {
                let start = self.compare(piece, CmpPred::Eq, addr.offset, const_i64(0), loc);
                let live = self
                    .is_live(piece, addr.base, loc)
                    .expect("a heap base has a liveness cell");
                self.all(piece, vec![start, live], loc)
            }
            Some(addr)
                if self.memory.bases[addr.base.index()].kind != BaseKind::Pointee
                    && !self.memory.is_heap(addr.base) =>
            {
                // A local or a global: never returned by an allocator.
                Operand::Const(Const::bool(false))
            }
            _ => self.not_modeled(piece, "the pointer given to `free`", loc),
        };
        let check = self.new_check(CheckKind::InvalidFree, loc.clone());
        let piece = self.split_on_check(current, cond, check, loc.clone(), loc, "free");
        // Another thread's writes may be seen once the call synchronizes, before this object
        // is dead.
        self.synchronize_allocation(piece, loc);
        match addr {
            Some(addr) if self.memory.live.contains_key(&addr.base) => {
                self.set_live(piece, addr.base, false, loc)
            }
            // Any object other code may reach may be the one freed.
            _ => self.clobber_live_cells(piece, loc),
        }
    }
}
