//! The incremental cache of per-function results: a function whose key (`key.rs`) is in
//! the store is not analyzed; its results and the record of its run come from the entry
//! (`entry.rs`), so a second run over an unchanged program analyzes nothing and reports the
//! same, and a change re-analyzes the functions whose key changed.
//!
//! Only results that do not depend on the wall clock are stored: not a function stopped by
//! time (its own budget, the run's, or a stage's share) nor by its heap budget (a share of
//! the memory the process has left, which varies), nor one that met an internal error.
//! Results limited by a budget of work are stored: they are the same on any machine.
//!
//! The driver knows the store only through [`FunctionStore`]; where entries live (a
//! directory, shared storage) is the caller's choice.

mod entry;
mod key;
mod sha256;

pub use key::Key;

pub(crate) use entry::CachedFunction;

use crate::cex::CexConfig;
use crate::check::{BudgetKind, BudgetLimit, RunEnd, Stage, StageEnd, UnknownReason, Verdict};
use crate::frontend::FrontendConfig;
use crate::ir::Module;
use key::ModuleKeys;

/// Where entries are kept: bytes under a key.
pub trait FunctionStore: Sync {
    /// The identity of the running build of polyfocus, which every key includes so that a
    /// development build never reads another build's results.
    fn build(&self) -> &str;
    /// The entry under `key`, when there is one.
    fn read(&self, key: &Key) -> Option<Vec<u8>>;
    /// Stores `bytes` under `key` (atomically: a reader sees the whole entry or none).
    fn write(&self, key: &Key, bytes: &[u8]);
    /// The entry under `key` cannot be used (corrupt, another format): warn and drop it.
    fn refuse(&self, key: &Key, why: &str);
}

/// The cache as one analysis of a module uses it.
pub(crate) struct ModuleCache<'a> {
    store: &'a dyn FunctionStore,
    keys: ModuleKeys,
}

impl<'a> ModuleCache<'a> {
    /// The keys of the functions of `module`, loaded with `fe`, under `config` and `cex`.
    pub fn new(
        store: &'a dyn FunctionStore,
        module: &Module,
        fe: &FrontendConfig,
        config: &crate::driver::AnalysisConfig,
        cex: Option<&CexConfig>,
    ) -> ModuleCache<'a> {
        let configuration = key::configuration(config, fe, cex, store.build());
        ModuleCache {
            store,
            keys: key::module_keys(module, configuration, fe),
        }
    }

    /// The stored results of the `i`-th function, when its entry is there, valid, and for
    /// this program if its results depend on the whole program.
    pub fn look_up(&self, module: &Module, i: usize) -> Option<CachedFunction> {
        let key = self.keys.functions[i];
        let bytes = self.store.read(&key)?;
        match entry::decode(&bytes, key, &module.functions[i], module) {
            Ok(cached) if cached.program.is_some_and(|p| p != self.keys.program) => None,
            Ok(cached) => Some(cached),
            Err(why) => {
                self.store.refuse(&key, &why);
                None
            }
        }
    }

    /// Stores the results of the `i`-th function, unless they depend on the wall clock;
    /// returns whether they were stored.
    pub fn save(&self, module: &Module, i: usize, mut cached: CachedFunction) -> bool {
        if !is_deterministic(&cached) {
            return false;
        }
        let searched = cached
            .run
            .stages
            .iter()
            .any(|s| s.stage == Stage::CounterexampleSearch);
        let violated = cached
            .results
            .iter()
            .any(|r| matches!(r.verdict, Verdict::Violated(_)));
        if violated || (searched && self.keys.searches_program[i]) {
            cached.program = Some(self.keys.program);
        }
        let func = &module.functions[i];
        let key = self.keys.functions[i];
        self.store.write(&key, &entry::encode(key, func, &cached));
        true
    }
}

/// Whether the results do not depend on the wall clock nor on the memory left to the
/// process: no time or heap budget stopped the function or one of its stages.
fn is_deterministic(cached: &CachedFunction) -> bool {
    let run_ok = matches!(
        cached.run.end,
        RunEnd::Finished | RunEnd::Budget(BudgetKind::Analysis | BudgetKind::FrontEnd)
    );
    let stages_ok = cached.run.stages.iter().all(|s| {
        matches!(
            s.end,
            StageEnd::Finished | StageEnd::Budget(BudgetKind::Analysis | BudgetKind::FrontEnd)
        )
    });
    let results_ok = cached.results.iter().all(|r| match &r.verdict {
        Verdict::Unknown(UnknownReason::Stopped(stop)) => {
            matches!(
                stop.limit,
                BudgetLimit::SolverWork | BudgetLimit::FrontEnd(_)
            )
        }
        Verdict::Unknown(UnknownReason::InternalError(_)) => false,
        _ => true,
    });
    run_ok && stages_ok && results_ok
}
