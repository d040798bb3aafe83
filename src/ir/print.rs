//! The text form of the lifted program, as `polyfocus ir` prints it.
//!
//! Two forms, both read back by [`super::parse`]:
//! - `{}` (readable): what `polyfocus ir` shows. Value names, files and columns of source
//!   locations are left out; printing what `parse` reads from it gives the same text.
//! - `{:#}` (exact): adds a `value` line per value (type, name, source name), quotes every
//!   name, and writes locations in full; `parse` reads back the same [`Function`].

use super::*;

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Value(v) => write!(f, "{v}"),
            Operand::Const(c) if c.ty.is_bool() => write!(f, "{}", c.bits == 1),
            Operand::Const(c) => write!(f, "{}:{}", c.signed(), c.ty),
            Operand::Undef(ty) => write!(f, "undef:{ty}"),
        }
    }
}

impl fmt::Display for BinOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::UDiv => "udiv",
            BinOp::SDiv => "sdiv",
            BinOp::URem => "urem",
            BinOp::SRem => "srem",
            BinOp::Shl => "shl",
            BinOp::LShr => "lshr",
            BinOp::AShr => "ashr",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
        };
        f.write_str(s)
    }
}

impl fmt::Display for CmpPred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            CmpPred::Eq => "eq",
            CmpPred::Ne => "ne",
            CmpPred::Ugt => "ugt",
            CmpPred::Uge => "uge",
            CmpPred::Ult => "ult",
            CmpPred::Ule => "ule",
            CmpPred::Sgt => "sgt",
            CmpPred::Sge => "sge",
            CmpPred::Slt => "slt",
            CmpPred::Sle => "sle",
        };
        f.write_str(s)
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Use(op) => write!(f, "{op}"),
            Expr::Binary {
                op,
                lhs,
                rhs,
                flags,
            } => {
                write!(f, "{op}")?;
                if flags.nsw {
                    write!(f, " nsw")?;
                }
                if flags.nuw {
                    write!(f, " nuw")?;
                }
                if flags.exact {
                    write!(f, " exact")?;
                }
                if flags.nosanitize {
                    write!(f, " nosanitize")?;
                }
                write!(f, " {lhs}, {rhs}")
            }
            Expr::Cmp { pred, lhs, rhs } => write!(f, "icmp {pred} {lhs}, {rhs}"),
            Expr::Cast { op, arg } => {
                let s = match op {
                    CastOp::ZExt => "zext",
                    CastOp::SExt => "sext",
                    CastOp::Trunc => "trunc",
                };
                write!(f, "{s} {arg}")
            }
            Expr::BitCount { count, arg } => write!(f, "{} {arg}", count.name()),
            Expr::Select {
                cond,
                on_true,
                on_false,
            } => {
                write!(f, "select {cond}, {on_true}, {on_false}")
            }
        }
    }
}

impl fmt::Display for HavocReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self, f.alternate()) {
            (HavocReason::Nondet { function }, false) => write!(f, "nondet {function}"),
            (HavocReason::Nondet { function }, true) => write!(f, "nondet {function:?}"),
            (HavocReason::UnknownCall { function }, false) => write!(f, "unknown call {function}"),
            (HavocReason::UnknownCall { function }, true) => {
                write!(f, "unknown call {function:?}")
            }
            (HavocReason::Load, _) => write!(f, "load"),
            (HavocReason::UnknownBounds, _) => write!(f, "unknown bounds"),
            (HavocReason::NullParam { param }, false) => write!(f, "null param {param}"),
            (HavocReason::NullParam { param }, true) => write!(f, "null param {param:?}"),
            (HavocReason::SizeParam { param }, false) => write!(f, "size param {param}"),
            (HavocReason::SizeParam { param }, true) => write!(f, "size param {param:?}"),
            (HavocReason::AddressParam { param }, false) => write!(f, "address param {param}"),
            (HavocReason::AddressParam { param }, true) => write!(f, "address param {param:?}"),
            (HavocReason::FieldParam { param, offset }, false) => {
                write!(f, "field param {offset} {param}")
            }
            (HavocReason::FieldParam { param, offset }, true) => {
                write!(f, "field param {offset} {param:?}")
            }
            (HavocReason::Unsupported { what }, false) => write!(f, "unsupported {what}"),
            (HavocReason::Unsupported { what }, true) => write!(f, "unsupported {what:?}"),
        }
    }
}

/// ` @line` (readable) or ` @"file":line:column` (exact).
fn write_loc(f: &mut fmt::Formatter<'_>, loc: &SourceLoc, exact: bool) -> fmt::Result {
    if exact {
        write!(f, "  @{:?}:{}:{}", loc.file, loc.line, loc.column)
    } else {
        write!(f, "  @{}", loc.line)
    }
}

fn write_edge(f: &mut fmt::Formatter<'_>, e: &Edge) -> fmt::Result {
    write!(f, "{}", e.target)?;
    if !e.moves.is_empty() {
        write!(f, " [")?;
        for (i, (d, s)) in e.moves.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{d} := {s}")?;
        }
        write!(f, "]")?;
    }
    Ok(())
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let exact = f.alternate();
        write!(f, "function {}(", self.name)?;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{p}: {}", self.value(*p).ty)?;
        }
        write!(f, ") entry {}", self.entry)?;
        if let (true, Some(loc)) = (exact, &self.loc) {
            write_loc(f, loc, true)?;
        }
        writeln!(f)?;
        if exact {
            for (i, info) in self.values.iter().enumerate() {
                write!(
                    f,
                    "  value {}: {} {:?}",
                    ValueId(i as u32),
                    info.ty,
                    info.name
                )?;
                if let Some(src) = &info.source_name {
                    write!(f, " {src:?}")?;
                }
                writeln!(f)?;
            }
        }
        for (i, base) in self.bases.iter().enumerate() {
            let kind = match base.kind {
                BaseKind::Local => "local",
                BaseKind::Global => "global",
                BaseKind::Constant => "constant",
                BaseKind::Pointee => "pointee",
            };
            writeln!(f, "  base {}: {kind} {:?}", BaseId(i as u32), base.name)?;
        }
        for id in self.block_ids() {
            let b = self.block(id);
            if exact {
                writeln!(f, "  {id}: {:?}", b.name)?;
            } else {
                writeln!(f, "  {id}: ; {}", b.name)?;
            }
            for (inst, loc) in b.insts.iter().zip(&b.locs) {
                write!(f, "    ")?;
                match inst {
                    Inst::Assign { dest, expr } => {
                        write!(f, "{dest}: {} = {expr}", self.value(*dest).ty)?
                    }
                    Inst::Havoc { dest, reason } if exact => {
                        write!(f, "{dest}: {} = havoc ({reason:#})", self.value(*dest).ty)?
                    }
                    Inst::Havoc { dest, reason } => {
                        write!(f, "{dest}: {} = havoc ({reason})", self.value(*dest).ty)?
                    }
                    Inst::Assume { cond } => write!(f, "assume {cond}")?,
                    Inst::Mem(MemOp::Load { dest, addr }) => write!(
                        f,
                        "{dest}: {} = load {}[{}]",
                        self.value(*dest).ty,
                        addr.base,
                        addr.offset
                    )?,
                    Inst::Mem(MemOp::Store { addr, value }) => {
                        write!(f, "store {}[{}], {value}", addr.base, addr.offset)?
                    }
                    Inst::Mem(MemOp::Init {
                        base,
                        leaves,
                        zero_rest,
                    }) => {
                        write!(f, "init {base} {{")?;
                        for (i, (off, v)) in leaves.iter().enumerate() {
                            write!(f, "{}{off}: {v}", if i == 0 { "" } else { ", " })?;
                        }
                        write!(f, "}}{}", if *zero_rest { " zero" } else { "" })?;
                    }
                    Inst::Mem(MemOp::Clobber { bases }) => {
                        write!(f, "clobber")?;
                        for (i, b) in bases.iter().enumerate() {
                            write!(f, "{}{b}", if i == 0 { " " } else { ", " })?;
                        }
                    }
                }
                if let (false, Some(dest)) = (exact, inst.dest()) {
                    let info = self.value(dest);
                    if let Some(src) = &info.source_name {
                        write!(f, "  ; {src}")?;
                    }
                }
                if let Some(loc) = loc {
                    write_loc(f, loc, exact)?;
                }
                writeln!(f)?;
            }
            write!(f, "    ")?;
            match &b.term {
                Terminator::Jump(e) => {
                    write!(f, "jump ")?;
                    write_edge(f, e)?;
                }
                Terminator::Branch {
                    cond,
                    then_edge,
                    else_edge,
                } => {
                    write!(f, "branch {cond} ? ")?;
                    write_edge(f, then_edge)?;
                    write!(f, " : ")?;
                    write_edge(f, else_edge)?;
                }
                Terminator::Switch { on, cases, default } => {
                    write!(f, "switch {on}")?;
                    for (c, e) in cases {
                        write!(f, " {}=>", c.signed())?;
                        write_edge(f, e)?;
                    }
                    write!(f, " default=>")?;
                    write_edge(f, default)?;
                }
                Terminator::Return => write!(f, "return")?,
                Terminator::Stop => write!(f, "stop")?,
                Terminator::Error(c) => write!(f, "error {c}")?,
            }
            if let Some(loc) = &b.term_loc {
                write_loc(f, loc, exact)?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
