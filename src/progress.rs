//! The stage a worker thread is in, for the progress line on a terminal.
//!
//! The driver installs a slot on each worker thread for the function it analyzes; the
//! stages (`analysis`, `refinement round k`, `counterexample search depth d`) name
//! themselves with [`stage`]. A thread without a slot pays one thread-local read.
//!
//! **Architecture Invariant:** a leaf, like [`crate::budget`]: it imports nothing of the
//! crate, and what it records is only ever displayed, never read by an analysis.

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

/// Where a worker thread writes the name of its current stage.
pub type StageSlot = Arc<Mutex<String>>;

thread_local! {
    static SLOT: RefCell<Option<StageSlot>> = const { RefCell::new(None) };
}

/// Names the stage the current thread is in (`name` is only called when a slot is
/// installed).
pub fn stage(name: impl FnOnce() -> String) {
    let _ = SLOT.try_with(|slot| {
        if let Some(slot) = slot.borrow().as_ref() {
            let name = name();
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = name;
        }
    });
}

/// Installs `slot` on the current thread until the guard is dropped.
pub fn install(slot: StageSlot) -> Installed {
    SLOT.with(|s| *s.borrow_mut() = Some(slot));
    Installed(())
}

/// Removes the current thread's slot when dropped.
pub struct Installed(());

impl Drop for Installed {
    fn drop(&mut self) {
        let _ = SLOT.try_with(|s| *s.borrow_mut() = None);
    }
}
