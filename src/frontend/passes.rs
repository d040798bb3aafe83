//! The passes every lifted function goes through, assembled here because the list spans two
//! modules that know nothing of each other's place in it: the lowering of memory
//! (`memory`), which comes first so that every later pass and every engine reads scalar
//! IR, then the passes over scalar IR (`ir::pass`).

use crate::ir::pass::{
    AssumeThroughPhis, EntryNotAnErrorSite, Pipeline, RemainderIdentity, Verification,
};
use crate::memory::MemoryToValues;

/// The standard pipeline, in order.
pub fn standard_pipeline(verification: Verification) -> Pipeline {
    Pipeline::new(
        vec![
            Box::new(MemoryToValues),
            Box::new(RemainderIdentity),
            Box::new(AssumeThroughPhis),
            Box::new(EntryNotAnErrorSite),
        ],
        verification,
    )
}
