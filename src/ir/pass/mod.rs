//! IR-to-IR passes: each turns a [`Function`] into a [`Function`] with the same executions
//! reaching each error site, and establishes one invariant that later stages may rely on.
//!
//! **Architecture Invariant:** a pass never removes an execution that can reach an error
//! site (it may only end, earlier, executions that an assumption or undefined behaviour
//! already ends later). The [`Pipeline`] runs [`verify`] on the input and after every pass
//! when verification is on (debug builds, tests, `-Z verify-ir`), and names the
//! pass that broke an invariant.
//!
//! This module knows the passes over scalar IR and how to run a list of passes; the list a
//! lifted function goes through, which begins with the lowering of memory (a pass defined
//! outside `ir`, [`Pass::lowers_memory`]), is assembled above both (`frontend::passes`).
//! Instrumentation that creates checks (runtime checks) runs after the passes
//! ([`Pipeline::instrument`]).

mod assume_phi;
mod entry;
mod remainder;
mod runtime_checks;

pub use assume_phi::AssumeThroughPhis;
pub use entry::{separate_entry, EntryNotAnErrorSite};
pub use remainder::RemainderIdentity;
pub use runtime_checks::{reach_at_entry, Instrumented, RuntimeChecks};

use std::fmt;

use super::{verify, verify_scalar, Function, VerifyError};

/// A transformation of one function.
pub trait Pass {
    /// A short name, for reports of a broken invariant.
    fn name(&self) -> &'static str;

    /// The one invariant the output has, in a sentence.
    fn invariant(&self) -> &'static str;

    /// Rewrites the function. Must keep it well formed ([`verify`]) and keep every execution
    /// that reaches an error site.
    fn run(&self, func: Function) -> Function;

    /// Whether the output has no memory operation and no base ([`verify_scalar`] checks it
    /// after this pass and every later one).
    fn lowers_memory(&self) -> bool {
        false
    }
}

/// Whether the [`Pipeline`] verifies the IR between passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verification {
    /// Run [`verify`] on the input and after every pass.
    AfterEachPass,
    /// Trust the passes (release builds, unless asked for).
    Off,
}

impl Verification {
    /// On in debug builds; in release builds only when `requested` (the frontend passes
    /// `-Z verify-ir`).
    pub fn for_build(requested: bool) -> Verification {
        if cfg!(debug_assertions) || requested {
            Verification::AfterEachPass
        } else {
            Verification::Off
        }
    }
}

/// A broken invariant: the function `stage` produced does not verify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassError {
    /// The pass whose output is ill formed, or `"input"` when the function given to the
    /// pipeline already was.
    pub stage: &'static str,
    /// What the verifier found.
    pub errors: Vec<VerifyError>,
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.stage == "input" {
            "the input of the IR passes does not verify".to_string()
        } else {
            format!("IR pass `{}` broke the IR", self.stage)
        };
        write!(f, "{what}: ")?;
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                write!(f, "; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for PassError {}

/// An ordered list of passes.
pub struct Pipeline {
    passes: Vec<Box<dyn Pass>>,
    verification: Verification,
}

impl Pipeline {
    /// The given passes, in order.
    pub fn new(passes: Vec<Box<dyn Pass>>, verification: Verification) -> Pipeline {
        Pipeline {
            passes,
            verification,
        }
    }

    /// The names and invariants of the passes, in order.
    pub fn describe(&self) -> Vec<(&'static str, &'static str)> {
        self.passes
            .iter()
            .map(|p| (p.name(), p.invariant()))
            .collect()
    }

    /// Runs every pass in order; with verification on, fails at the first pass whose output
    /// does not verify.
    pub fn run(&self, func: Function) -> Result<Function, PassError> {
        self.check("input", &func, false)?;
        let mut func = func;
        let mut scalar = false;
        for pass in &self.passes {
            func = pass.run(func);
            scalar |= pass.lowers_memory();
            self.check(pass.name(), &func, scalar)?;
        }
        Ok(func)
    }

    /// Runs the instrumentation of runtime checks after the passes (it creates checks, so it
    /// is not a [`Pass`]); the new checks are numbered from `first_check`. With verification
    /// on, its output is verified like a pass's.
    pub fn instrument(
        &self,
        checks: &RuntimeChecks,
        func: Function,
        first_check: u32,
    ) -> Result<Instrumented, PassError> {
        let res = checks.run(func, first_check);
        let scalar = self.passes.iter().any(|p| p.lowers_memory());
        self.check(checks.name(), &res.function, scalar)?;
        Ok(res)
    }

    /// Verifies the output of `stage`; `scalar` when a pass before lowered memory.
    fn check(&self, stage: &'static str, func: &Function, scalar: bool) -> Result<(), PassError> {
        if self.verification == Verification::Off {
            return Ok(());
        }
        let errors = if scalar {
            verify_scalar(func)
        } else {
            verify(func)
        };
        if errors.is_empty() {
            Ok(())
        } else {
            Err(PassError { stage, errors })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::*;

    /// A pass that breaks single assignment, to see the pipeline name it.
    struct DefineTwice;

    impl Pass for DefineTwice {
        fn name(&self) -> &'static str {
            "define-twice"
        }
        fn invariant(&self) -> &'static str {
            "none: it is broken on purpose"
        }
        fn run(&self, mut func: Function) -> Function {
            let dest = func.params[0];
            let inst = Inst::Havoc {
                dest,
                reason: HavocReason::Load,
            };
            func.blocks[0].insts.push(inst);
            func.blocks[0].locs.push(None);
            func
        }
    }

    fn one_block() -> Function {
        Function {
            name: "f".into(),
            params: vec![ValueId(0)],
            values: vec![ValueInfo {
                ty: Ty::int(32),
                name: "x".into(),
                source_name: None,
            }],
            blocks: vec![Block {
                name: "entry".into(),
                insts: vec![],
                locs: vec![],
                term: Terminator::Return,
                term_loc: None,
            }],
            entry: BlockId(0),
            loc: None,
            bases: vec![],
        }
    }

    #[test]
    fn a_broken_pass_is_named_with_the_invariant_it_broke() {
        let pipeline = Pipeline::new(
            vec![Box::new(AssumeThroughPhis), Box::new(DefineTwice)],
            Verification::AfterEachPass,
        );
        let err = pipeline.run(one_block()).unwrap_err();
        assert_eq!(err.stage, "define-twice");
        assert!(err.to_string().contains("v0 defined 2 times"), "{err}");
    }

    #[test]
    fn an_ill_formed_input_is_blamed_on_the_input() {
        let mut f = one_block();
        f.entry = BlockId(3);
        let err = Pipeline::new(
            vec![Box::new(AssumeThroughPhis)],
            Verification::AfterEachPass,
        )
        .run(f)
        .unwrap_err();
        assert_eq!(err.stage, "input");
    }

    #[test]
    fn without_verification_the_output_is_trusted() {
        let pipeline = Pipeline::new(vec![Box::new(DefineTwice)], Verification::Off);
        assert!(pipeline.run(one_block()).is_ok());
    }
}
