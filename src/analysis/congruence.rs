//! Congruences of the values of a function (parity and strides): for each SSA
//! value, a class `r mod m` its reading always belongs to.
//!
//! The analysis is flow-insensitive over SSA, which is sound: a value at any point is the
//! one its single definition computed last, from operands that each were in their own
//! class; a phi takes the operand of the edge taken, so its class is the join over its
//! moves. The fixpoint needs no widening (the congruence lattice has no infinite ascending
//! chain) and is cheap: a few passes over the instructions.
//!
//! The classes describe the *readings* the solver formula uses ([`crate::smt`]): a value
//! read in another reading, and an operation that may wrap, keep only their class modulo
//! `2^w` ([`Congruence::wrap`]); an `nsw` operation whose result is read signed (or `nuw`
//! read unsigned) computes the exact sum, difference or product, as the formula says.
//! They are used as extra facts of the solver's queries ([`crate::smt::SideFact`]), next to
//! the engine's linear invariants: a fact true of every execution can only remove paths
//! that no execution takes.

use super::certify::{Certificate, CutInvariants};
use super::FunctionContext;
use crate::domain::congruence::Congruence;
use crate::domain::Int;
use crate::graph::CutPointId;
use crate::ir::{BinOp, CastOp, Expr, Function, Inst, Interp, Operand, ValueId};
use crate::smt::SideFact;
use std::time::Duration;

/// The class of every value of a function, indexed by `ValueId`.
#[derive(Clone, Debug)]
pub struct Congruences {
    per_value: Vec<Congruence>,
}

impl Congruences {
    /// The class of `v`'s reading.
    pub fn of(&self, v: ValueId) -> &Congruence {
        &self.per_value[v.index()]
    }

    /// The values whose class says something (neither every integer nor empty).
    pub fn informative(&self) -> impl Iterator<Item = (ValueId, &Congruence)> {
        self.per_value
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.is_top() && c.as_class().is_some())
            .map(|(i, c)| (ValueId(i as u32), c))
    }
}

impl Congruences {
    /// The facts at cut point `p`: the class of each value live there that says something.
    pub fn facts_at(&self, ctx: &FunctionContext<'_>, p: CutPointId) -> Vec<SideFact> {
        ctx.live_at(ctx.graph().cut_point(p).block)
            .iter()
            .filter(|v| !self.of(**v).is_top())
            .filter_map(|v| {
                let (residue, modulus) = self.of(*v).as_class()?;
                Some(SideFact::Congruence {
                    value: *v,
                    residue: residue.clone(),
                    modulus: modulus.clone(),
                })
            })
            .collect()
    }
}

/// Checks with the solver that the congruences are inductive next to the linear
/// `invariants` (consecution: from the invariant and the facts of each cut point, every path
/// of its region ends in a state with the facts of its target), on the exact formula. The
/// analysis is sound by construction; this is the independent check the tests run.
pub fn certify(
    ctx: &FunctionContext<'_>,
    invariants: &CutInvariants,
    classes: &Congruences,
    timeout: Duration,
) -> Certificate {
    let facts = |p| classes.facts_at(ctx, p);
    super::certify::consecution(ctx, invariants, &facts, &facts, timeout)
}

/// Computes the classes of `func`'s values under `readings` (one per value).
pub fn analyze(func: &Function, readings: &[Interp]) -> Congruences {
    let n = func.values.len();
    let mut defined = vec![false; n];
    for block in &func.blocks {
        for inst in &block.insts {
            if let Some(d) = inst.dest() {
                defined[d.index()] = true;
            }
        }
        for edge in block.term.edges() {
            for (d, _) in &edge.moves {
                defined[d.index()] = true;
            }
        }
    }
    // Parameters and anything defined nowhere in the body: any integer.
    let mut per_value: Vec<Congruence> = defined
        .iter()
        .map(|d| {
            if *d {
                Congruence::Bottom
            } else {
                Congruence::top()
            }
        })
        .collect();
    let facts = Transfer { func, readings };
    loop {
        let mut changed = false;
        let mut update = |per_value: &mut Vec<Congruence>, d: ValueId, c: Congruence| {
            let old = &per_value[d.index()];
            let joined = old.join(&c);
            if &joined != old {
                per_value[d.index()] = joined;
                changed = true;
            }
        };
        for block in &func.blocks {
            for inst in &block.insts {
                let (d, c) = match inst {
                    Inst::Havoc { dest, .. } => (*dest, Congruence::top()),
                    // Lowered by the memory pass before any analysis; any value.
                    Inst::Mem(_) => match inst.dest() {
                        Some(d) => (d, Congruence::top()),
                        None => continue,
                    },
                    Inst::Assume { .. } => continue,
                    Inst::Assign { dest, expr } => (*dest, facts.expr(&per_value, *dest, expr)),
                };
                update(&mut per_value, d, c);
            }
            for edge in block.term.edges() {
                for (d, src) in &edge.moves {
                    let c = facts.operand(&per_value, src, readings[d.index()]);
                    update(&mut per_value, *d, c);
                }
            }
        }
        if !changed {
            return Congruences { per_value };
        }
    }
}

struct Transfer<'a> {
    func: &'a Function,
    readings: &'a [Interp],
}

impl Transfer<'_> {
    fn width(&self, v: ValueId) -> u32 {
        self.func.value(v).ty.width
    }

    /// The class of an operand read in `want` (the formula converts a value read the other
    /// way modulo `2^w`).
    fn operand(&self, per_value: &[Congruence], op: &Operand, want: Interp) -> Congruence {
        match op {
            Operand::Value(v) => {
                let c = &per_value[v.index()];
                if self.readings[v.index()] == want {
                    c.clone()
                } else {
                    c.wrap(self.width(*v))
                }
            }
            Operand::Const(k) => Congruence::constant(match want {
                Interp::Signed => Int::from(k.signed()),
                Interp::Unsigned => Int::from(k.unsigned()),
            }),
            Operand::Undef(_) => Congruence::top(),
        }
    }

    fn expr(&self, per_value: &[Congruence], dest: ValueId, expr: &Expr) -> Congruence {
        let di = self.readings[dest.index()];
        let w = self.width(dest);
        match expr {
            Expr::Use(op) => self.operand(per_value, op, di),
            Expr::Cmp { .. } | Expr::BitCount { .. } => Congruence::top(),
            Expr::Select {
                on_true, on_false, ..
            } => self
                .operand(per_value, on_true, di)
                .join(&self.operand(per_value, on_false, di)),
            Expr::Cast { op, arg } => match op {
                // The argument in its own reading, taken modulo 2^w of the destination.
                CastOp::Trunc => {
                    let own = match arg {
                        Operand::Value(v) => self.readings[v.index()],
                        _ => di,
                    };
                    self.operand(per_value, arg, own).wrap(w)
                }
                CastOp::ZExt | CastOp::SExt => {
                    let want = if *op == CastOp::ZExt {
                        Interp::Unsigned
                    } else {
                        Interp::Signed
                    };
                    let a = self.operand(per_value, arg, want);
                    if want == di {
                        a
                    } else {
                        a.wrap(w)
                    }
                }
            },
            Expr::Binary {
                op,
                lhs,
                rhs,
                flags,
            } => {
                let a = self.operand(per_value, lhs, di);
                let b = self.operand(per_value, rhs, di);
                let exact =
                    (flags.nsw && di == Interp::Signed) || (flags.nuw && di == Interp::Unsigned);
                let e = match op {
                    BinOp::Add => a.add(&b),
                    BinOp::Sub => a.sub(&b),
                    BinOp::Mul => a.mul(&b),
                    BinOp::Shl => match rhs {
                        Operand::Const(k) if k.unsigned() < w as u128 => a.mul(
                            &Congruence::constant(Int::from(1u8) << k.unsigned() as usize),
                        ),
                        _ => return Congruence::top(),
                    },
                    _ => return Congruence::top(),
                };
                // Shifts wrap even under nsw (the formula wraps them).
                if exact && *op != BinOp::Shl {
                    e
                } else {
                    e.wrap(w)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse;

    fn classes(src: &str) -> (Function, Congruences) {
        let func = parse(src).expect("parses");
        let readings = crate::ir::choose_interpretations(&func);
        let c = analyze(&func, &readings);
        (func, c)
    }

    fn pf(name: &str) -> String {
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/ir")
                .join(name),
        )
        .expect("test file")
    }

    /// The weakest linear invariants: every cut point reached, no constraint.
    fn top_invariants(ctx: &FunctionContext<'_>) -> CutInvariants {
        CutInvariants {
            function: ctx.func().name.clone(),
            at_cut_point: ctx.graph().ids().map(|_| Some(vec![vec![]])).collect(),
        }
    }

    #[test]
    fn certification_accepts_parity_and_refutes_a_stride_of_three_under_wrap() {
        let (func, c) = classes(&pf("even.pf"));
        let ctx = FunctionContext::new(&func, &crate::params::Params::DEFAULT);
        let cert = certify(&ctx, &top_invariants(&ctx), &c, Duration::from_secs(10));
        assert_eq!(cert, Certificate::Inductive);

        // `x += 3` wraps modulo 2^32: claiming x ≡ 0 mod 3 must be refuted by the solver.
        let (func, mut c) = classes(&pf("stride3_wraps.pf"));
        assert!(
            c.of(ValueId(0)).is_top(),
            "the analysis keeps no class of 3 under wrap"
        );
        c.per_value[0] = Congruence::class(Int::from(0), Int::from(3));
        let ctx = FunctionContext::new(&func, &crate::params::Params::DEFAULT);
        let cert = certify(&ctx, &top_invariants(&ctx), &c, Duration::from_secs(10));
        assert!(matches!(cert, Certificate::NotInductive(_)), "{cert:?}");
    }

    #[test]
    fn unsigned_stride_two_keeps_parity() {
        let src = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ir/even.pf"),
        )
        .expect("tests/ir/even.pf");
        let (_func, c) = classes(&src);
        assert_eq!(c.of(ValueId(0)).to_string(), "≡ 0 mod 2");
    }
}
