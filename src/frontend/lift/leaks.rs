//! The leak checks (`--checks memory`, SV-COMP's `valid-memtrack`), lifted in `main` only.
//!
//! Each allocation site with a base of its own (`memory.rs`: a `malloc`/`calloc` call that
//! runs at most once) gets a [`CheckKind::Leak`] located at the allocation, where
//! LeakSanitizer's report places a leaked object. Its error sites are the ends of the
//! program: the return of `main` and each call of `exit`, `_Exit`, `_exit`, `abort` or
//! `llvm.trap` (and the other ends of [`Role::Stop`](crate::frontend::Role)); at each, the
//! object's liveness cell (`access.rs`: 1 at the allocation, 0 at its `free`) must be 0.
//! The cells start at 0 at the entry of `main`, since no object exists before the program
//! starts. So `proved` means: every object of the site is freed before the program ends,
//! which gives both `valid-memtrack` and `valid-memcleanup` for executions that end.
//!
//! - **Abnormal ends.** `abort` and `llvm.trap` are ends like `exit`: SV-COMP counts an
//!   object lost before them as a leak, and the check, which does not follow pointers,
//!   cannot tell a lost object from one a live frame still points to; it requires the
//!   object freed, the sound side. A violation there is never confirmed (LeakSanitizer does
//!   not run at an abort), so it stays unknown. A call of an error function or a failed
//!   assertion is an error site of its own: a leak branch before it would take executions
//!   away from that site, so it gets none, and when objects are followed such an end makes
//!   the coverage partial (`Module::leaks`).
//! - **What is not followed is unknown, never proved.** A call that may allocate an object
//!   the model does not follow (an allocation site without a base, `realloc`, `strdup` and
//!   the other allocators of the C library, a library function without a model, code
//!   without a body, a function not inlined, an indirect call, inline assembly) gets a leak
//!   check of its own at the call whose condition is arbitrary. A call of unseen code also
//!   clobbers the liveness cells of the objects it may reach, so their checks stay unknown.
//! - **Violations** come only from a native replay in which LeakSanitizer reports a leaked
//!   object allocated at the check's place (`cex/asan.rs`).
//! - **Executions that never end** are not covered: an object lost by one is not seen. A
//!   loop of `main` from which no end is reachable makes the coverage partial; a loop that
//!   could end but never does is the assumption a `proved` rests on.

use inkwell::llvm_sys::prelude::*;

use super::Lifter;
use crate::frontend::{debuginfo, library, library_model};
use crate::ir::{
    BlockId, CheckKind, CmpPred, Const, Edge, HavocReason, Inst, MemOp, Operand, SourceLoc,
    Terminator, Ty,
};

const BYTE: Ty = Ty { width: 8 };

/// Functions of the C library that return (or store through an argument) an object of the
/// heap the program must free, besides the allocation sites with a base.
const ALLOCATORS: &[&str] = &[
    "malloc",
    "calloc",
    "realloc",
    "reallocarray",
    "strdup",
    "strndup",
    "__strdup",
    "__strndup",
    "wcsdup",
    "asprintf",
    "vasprintf",
    "__asprintf",
    "getline",
    "getdelim",
    "__getdelim",
    "aligned_alloc",
    "memalign",
    "posix_memalign",
    "valloc",
    "pvalloc",
    "realpath",
    "getcwd",
    "get_current_dir_name",
    "canonicalize_file_name",
    "scandir",
    "scandir64",
    "tempnam",
    "open_memstream",
    "open_wmemstream",
    "backtrace_symbols",
];

/// Library functions without a model (`library_model`) that allocate nothing the program
/// owns: the inputs the counterexample search serves.
const NON_ALLOCATING_INPUTS: &[&str] = &[
    "scanf",
    "__isoc99_scanf",
    "fscanf",
    "__isoc99_fscanf",
    "sscanf",
    "__isoc99_sscanf",
    "atoi",
    "atol",
    "atoll",
    "strtol",
    "strtoll",
    "strtoul",
    "strtoull",
    "getenv",
];

/// Whether a call of the C library's `name` may allocate an object the program owns: an
/// allocator, or a function without a model that is neither an input nor of `<math.h>`.
pub(super) fn library_may_allocate(name: &str) -> bool {
    ALLOCATORS.contains(&name)
        || (library_model::model(name).is_none()
            && !NON_ALLOCATING_INPUTS.contains(&name)
            && !library::is_math(name))
}

impl Lifter {
    /// Whether leaks are followed in the function being lifted: memory checks, in `main`.
    fn follows_leaks(&self) -> bool {
        self.memory_checks && self.name == "main"
    }

    /// Gives each allocation site with a liveness cell its leak check (in `main`).
    pub(super) fn collect_leak_checks(&mut self) {
        if !self.follows_leaks() {
            return;
        }
        self.leaks.followed = true;
        let mut sites: Vec<(crate::ir::BaseId, LLVMValueRef)> = self
            .memory
            .heap
            .iter()
            .filter(|(_, (base, _))| self.memory.live.contains_key(base))
            .map(|(inst, (base, _))| (*base, *inst))
            .collect();
        sites.sort_by_key(|(base, _)| *base);
        for (base, inst) in sites {
            let loc = debuginfo::location(inst);
            let check = self.new_check(CheckKind::Leak, loc);
            self.leaks.checks.push((base, check));
        }
    }

    /// At the entry of `main`: no object exists yet, every liveness cell is 0.
    pub(super) fn start_leak_tracking(&mut self, piece: usize) {
        let bases: Vec<_> = self.leaks.checks.iter().map(|(b, _)| *b).collect();
        for base in bases {
            self.set_live(piece, base, false, &None);
        }
    }

    /// At an end of the program (the return of `main`, `exit`, `abort`): each followed
    /// object must be freed.
    pub(super) fn check_no_leak(&mut self, current: &mut usize, loc: &Option<SourceLoc>) {
        for (base, check) in self.leaks.checks.clone() {
            let Some(cell) = self.memory.live.get(&base).copied() else {
                continue;
            };
            let piece = *current;
            let live = self.synthetic_value(BYTE, "live");
            let addr = crate::ir::Address {
                base: cell,
                offset: Operand::Const(Const::new(Ty { width: 64 }, 0)),
            };
            self.push(
                piece,
                Inst::Mem(MemOp::Load { dest: live, addr }),
                loc.clone(),
            );
            let freed = self.synthetic_value(Ty::BOOL, "freed");
            let expr = crate::ir::Expr::Cmp {
                pred: CmpPred::Eq,
                lhs: Operand::Value(live),
                rhs: Operand::Const(Const::new(BYTE, 0)),
            };
            self.push(piece, Inst::Assign { dest: freed, expr }, loc.clone());
            self.branch_to_leak(current, Operand::Value(freed), check, loc);
        }
    }

    /// Ends the current piece with a branch on `freed`: on to a new piece when it holds, else
    /// to the error block of `check`, one per check whatever the number of ends (the
    /// analysis keeps one error site per check).
    fn branch_to_leak(
        &mut self,
        current: &mut usize,
        freed: Operand,
        check: crate::ir::CheckId,
        loc: &Option<SourceLoc>,
    ) {
        let piece = *current;
        let k = self.block_of_piece(piece);
        let base = self.pieces[k].name.clone();
        let error = match self.leaks.error_pieces.get(&check) {
            Some(&error) => error,
            None => {
                let error = self.new_piece(k, format!("{base}.leak.fail"));
                self.pieces[error].term = Some((Terminator::Error(check), loc.clone()));
                self.leaks.error_pieces.insert(check, error);
                error
            }
        };
        let n = self.layout[k].len();
        let cont = self.new_piece(k, format!("{base}.leak{n}.ok"));
        let term = Terminator::Branch {
            cond: freed,
            then_edge: Edge {
                target: BlockId(cont as u32),
                moves: vec![],
            },
            else_edge: Edge {
                target: BlockId(error as u32),
                moves: vec![],
            },
        };
        self.pieces[piece].term = Some((term, loc.clone()));
        *current = cont;
    }

    /// An execution of `main` may end at an error function or a failed assertion, which
    /// has no leak branch (see the module docs).
    pub(super) fn note_unchecked_end(&mut self, function: &str) {
        if self.follows_leaks() && self.leaks.unchecked_end.is_none() {
            self.leaks.unchecked_end = Some(function.to_string());
        }
    }

    /// A call that may allocate an object the model does not follow (`what` names it, for
    /// the reason): in `main`, a leak check at the call that stays unknown unless a native
    /// replay reports a leak allocated there.
    pub(super) fn unfollowed_allocation(
        &mut self,
        current: &mut usize,
        what: &str,
        loc: &Option<SourceLoc>,
    ) {
        if !self.follows_leaks() {
            return;
        }
        let piece = *current;
        let dest = self.synthetic_value(Ty::BOOL, "unfollowed");
        let reason = HavocReason::Unsupported {
            what: format!(
                "whether an object {what} allocates is freed, which the memory model does not follow"
            ),
        };
        self.push(piece, Inst::Havoc { dest, reason }, loc.clone());
        let check = self.new_check(CheckKind::Leak, loc.clone());
        self.split_on_check(
            current,
            Operand::Value(dest),
            check,
            loc.clone(),
            loc,
            "leak",
        );
    }

    /// The leak check of a call of the library's `name`, when it may allocate what the
    /// model does not follow (an allocation site with a base is followed).
    pub(super) fn library_leak(
        &mut self,
        current: &mut usize,
        inst: LLVMValueRef,
        name: &str,
        loc: &Option<SourceLoc>,
    ) {
        if self.memory.heap.contains_key(&inst) || !library_may_allocate(name) {
            return;
        }
        self.unfollowed_allocation(current, &format!("`{name}`"), loc);
    }

    /// Whether the leak checks of this function cover every object it may allocate: `None`
    /// when leaks are not followed here (not `main`, or no memory checks).
    pub(super) fn leak_coverage(&self) -> Option<Result<(), String>> {
        if !self.leaks.followed {
            return None;
        }
        Some(match &self.leaks.unchecked_end {
            Some(function) if !self.leaks.checks.is_empty() => Err(format!(
                "an execution may end at `{function}` (an error site) with an allocated object not checked freed"
            )),
            _ => Ok(()),
        })
    }
}

/// What the lifting of one function says about its leak checks.
#[derive(Default, Clone)]
pub(super) struct Leaks {
    /// Whether leaks were followed (memory checks, in `main`).
    pub(super) followed: bool,
    /// The leak check of each followed allocation site's base.
    pub(super) checks: Vec<(crate::ir::BaseId, crate::ir::CheckId)>,
    /// An error function or assertion function that ends an execution without a leak branch.
    pub(super) unchecked_end: Option<String>,
    /// The error piece of each leak check, shared by the ends of the program.
    pub(super) error_pieces: std::collections::HashMap<crate::ir::CheckId, usize>,
}

#[cfg(test)]
mod tests {
    use super::library_may_allocate;

    #[test]
    fn allocators_and_unmodeled_functions_may_allocate() {
        for name in [
            "strdup", "realloc", "asprintf", "getline", "getpwnam", "malloc",
        ] {
            assert!(library_may_allocate(name), "{name}");
        }
        for name in [
            "strlen", "printf", "free", "memcpy", "sqrt", "atoi", "scanf",
        ] {
            assert!(!library_may_allocate(name), "{name}");
        }
    }
}
