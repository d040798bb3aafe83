//! Structural checks of a lifted function: every id in range, every value defined once,
//! operand widths consistent. Run after lifting in tests and debug builds.

use super::*;

/// One violated invariant of the lifted program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The function.
    pub function: String,
    /// Where in it.
    pub block: Option<BlockId>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.block {
            Some(b) => write!(f, "{} {b}: {}", self.function, self.message),
            None => write!(f, "{}: {}", self.function, self.message),
        }
    }
}

/// [`verify`], and that no memory operation and no base is left: the form every engine
/// reads (what the memory pass establishes).
pub fn verify_scalar(func: &Function) -> Vec<VerifyError> {
    let mut errors = verify(func);
    for id in func.block_ids() {
        if func
            .block(id)
            .insts
            .iter()
            .any(|i| matches!(i, Inst::Mem(_)))
        {
            errors.push(VerifyError {
                function: func.name.clone(),
                block: Some(id),
                message: "memory operation left for an engine".into(),
            });
        }
    }
    if !func.bases.is_empty() {
        errors.push(VerifyError {
            function: func.name.clone(),
            block: None,
            message: format!("{} bases of memory left for an engine", func.bases.len()),
        });
    }
    errors
}

/// Checks a function; returns every problem found (empty when well formed).
pub fn verify(func: &Function) -> Vec<VerifyError> {
    let mut errors = Vec::new();
    let mut err = |block: Option<BlockId>, message: String| {
        errors.push(VerifyError {
            function: func.name.clone(),
            block,
            message,
        })
    };
    let n_values = func.values.len();
    let n_blocks = func.blocks.len();
    if func.entry.index() >= n_blocks {
        err(None, format!("entry {} out of range", func.entry));
    }
    let mut defined = vec![0u32; n_values];
    for p in &func.params {
        if p.index() < n_values {
            defined[p.index()] += 1;
        }
    }
    let op_ok = |op: &Operand| match op {
        Operand::Value(v) => v.index() < n_values,
        _ => true,
    };
    for id in func.block_ids() {
        let b = func.block(id);
        if b.insts.len() != b.locs.len() {
            err(Some(id), "locs and insts differ in length".into());
        }
        for inst in &b.insts {
            if let Some(d) = inst.dest() {
                if d.index() >= n_values {
                    err(Some(id), format!("{d} out of range"));
                    continue;
                }
                defined[d.index()] += 1;
            }
            let ops: Vec<&Operand> = inst.operands();
            for op in ops {
                if !op_ok(op) {
                    err(Some(id), format!("operand {op} out of range"));
                }
            }
            let addr = match inst {
                Inst::Mem(MemOp::Load { addr, .. } | MemOp::Store { addr, .. }) => Some(addr),
                _ => None,
            };
            if let Some(addr) = addr {
                if addr.base.index() >= func.bases.len() {
                    err(Some(id), format!("base {} out of range", addr.base));
                }
                if op_ok(&addr.offset) && func.operand_ty(&addr.offset) != Ty::int(64) {
                    err(Some(id), format!("offset {} is not an i64", addr.offset));
                }
            }
            if let Inst::Mem(MemOp::Init { base, .. }) = inst {
                if base.index() >= func.bases.len() {
                    err(Some(id), format!("base {base} out of range"));
                }
            }
            if let Inst::Mem(MemOp::Clobber { bases }) = inst {
                if let Some(b) = bases.iter().find(|b| b.index() >= func.bases.len()) {
                    err(Some(id), format!("base {b} out of range"));
                }
            }
            if let Inst::Assign {
                dest,
                expr: Expr::Binary { lhs, rhs, .. },
            } = inst
            {
                if dest.index() < n_values && op_ok(lhs) && op_ok(rhs) {
                    let w = func.value(*dest).ty;
                    if func.operand_ty(lhs) != w || func.operand_ty(rhs) != w {
                        err(Some(id), format!("width mismatch in definition of {dest}"));
                    }
                }
            }
        }
        for e in b.term.edges() {
            if e.target.index() >= n_blocks {
                err(Some(id), format!("edge to {} out of range", e.target));
            }
            for (d, s) in &e.moves {
                if d.index() >= n_values || !op_ok(s) {
                    err(Some(id), format!("move {d} := {s} out of range"));
                } else if func.operand_ty(s) != func.value(*d).ty {
                    err(Some(id), format!("move {d} := {s} changes width"));
                }
            }
        }
    }
    // Phi destinations are defined by moves on every incoming edge; count them once.
    let mut phi_dests = std::collections::BTreeSet::new();
    for b in &func.blocks {
        for e in b.term.edges() {
            for (d, _) in &e.moves {
                if d.index() < n_values {
                    phi_dests.insert(*d);
                }
            }
        }
    }
    for d in phi_dests {
        defined[d.index()] += 1;
    }
    for (i, n) in defined.iter().enumerate() {
        if *n > 1 {
            err(None, format!("v{i} defined {n} times"));
        }
    }
    errors
}
