//! The keys of cache entries: what a function's results depend on, hashed.
//!
//! A function's key hashes, in this order: the format of entries and the build of polyfocus
//! (its version and the identity of its executable), the configuration that can change a
//! verdict (engine, domain, budgets of work and `--timeout`, refinement, every `Params`
//! field, and with a counterexample search the front end's settings the native program is
//! built with: flags, data model, entries, checks, the front end's budgets), the function as
//! analyzed (its exact IR after every pass, inlined callees included, with its checks
//! numbered in the function so that a check added elsewhere does not change it, and each
//! check's kind and location), and the keys of the functions it calls by name (a cycle of
//! calls is hashed as one component, its members' IR in order).
//!
//! Locations are part of the IR, so an edit that moves the lines of a function changes its
//! key: the results it would give carry those lines.
//!
//! The program's digest hashes every function's IR, the constants of the callees that are
//! not analyzed on their own and the input files the native program is built from. A
//! violation was confirmed by a native run of the whole program, and the search of a
//! function that is not where executions start (or that calls through a pointer) runs the
//! whole program: an entry holding such results is valid only for that digest (see
//! [`super::entry`]). A search that ran from the function itself and found nothing is
//! reused while the function and the functions it calls by name are unchanged: its checks
//! are unknown either way.

use super::sha256::{hex, Sha256};
use crate::cex::CexConfig;
use crate::driver::{AnalysisConfig, Purpose};
use crate::frontend::FrontendConfig;
use crate::ir::{CheckId, Function, HavocReason, Inst, Module, Terminator};
use std::collections::BTreeMap;

/// The format of entries: changed whenever what an entry holds or how a key is computed
/// changes, so that entries of an older format are never read.
pub const FORMAT: u32 = 4;

/// A digest: a key of the cache, or the digest of a program.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Key([u8; 32]);

impl Key {
    /// Lower-case hexadecimal, 64 characters.
    pub fn hex(&self) -> String {
        hex(&self.0)
    }

    /// The key written as [`Key::hex`] writes it.
    pub fn from_hex(text: &str) -> Option<Key> {
        if text.len() != 64 || !text.is_ascii() {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(Key(bytes))
    }
}

/// The keys of a module's functions under one configuration.
pub(crate) struct ModuleKeys {
    /// Per function of the module, in order.
    pub functions: Vec<Key>,
    /// The program's digest.
    pub program: Key,
    /// Per function: whether a counterexample search of its checks runs the whole program
    /// (it is not where executions start, or it calls through a pointer).
    pub searches_program: Vec<bool>,
}

/// The digest of what, besides the function, can change a verdict: the build, the
/// configuration, the front end's settings (which the native program of a counterexample
/// search is built with too) and whether there is a search.
pub(crate) fn configuration(
    config: &AnalysisConfig,
    fe: &FrontendConfig,
    cex: Option<&CexConfig>,
    build: &str,
) -> Key {
    let mut h = Sha256::new();
    h.field(b"polyfocus function results");
    h.field(&FORMAT.to_le_bytes());
    h.field(env!("CARGO_PKG_VERSION").as_bytes());
    h.field(build.as_bytes());
    // Debug forms: every field of these plain types is printed, in declaration order.
    let analysis = format!(
        "{:?} {:?} {:?} {:?} {:?}",
        config.engine, config.domain, config.timeout, config.refine, config.params
    );
    h.field(analysis.as_bytes());
    h.field(&[matches!(config.purpose, Purpose::Verdicts) as u8]);
    // Not the inputs' paths (a project's bitcode is in a temporary folder): what they hold
    // is in the IR and the program's digest.
    let front_end = format!(
        "{:?} {:?} {:?} {} {} {} {:?} {} {} {} {}",
        fe.cflags,
        fe.data_model,
        fe.entry,
        fe.inline_limit,
        fe.inline_caller_limit,
        fe.lift_limit,
        fe.checks,
        fe.options.memory_model,
        fe.options.inline_marked,
        fe.options.inline_program_limit,
        fe.options.inline_leaf_limit
    );
    h.field(front_end.as_bytes());
    match cex {
        None => h.field(b"no counterexample search"),
        Some(cex) => h.field(format!("{:?}", cex.replay_timeout).as_bytes()),
    }
    Key(h.finish())
}

/// The keys of every function of `module` under the configuration digest `configuration`.
pub(crate) fn module_keys(module: &Module, configuration: Key, fe: &FrontendConfig) -> ModuleKeys {
    let own: Vec<Key> = module
        .functions
        .iter()
        .map(|f| own_digest(module, f))
        .collect();
    let by_name: BTreeMap<&str, usize> = module
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.as_str(), i))
        .collect();
    let calls: Vec<Vec<usize>> = module
        .functions
        .iter()
        .map(|f| {
            let mut callees: Vec<usize> = called_names(f)
                .iter()
                .filter_map(|n| by_name.get(n.as_str()).copied())
                .collect();
            callees.sort_unstable();
            callees.dedup();
            callees
        })
        .collect();
    let mut graph = petgraph::graph::DiGraph::<usize, ()>::new();
    let nodes: Vec<_> = (0..module.functions.len())
        .map(|i| graph.add_node(i))
        .collect();
    for (caller, callees) in calls.iter().enumerate() {
        for &callee in callees {
            graph.add_edge(nodes[caller], nodes[callee], ());
        }
    }
    // Tarjan's algorithm lists the components callees first, so a callee's key is known
    // before its callers need it.
    let mut keys: Vec<Option<Key>> = vec![None; module.functions.len()];
    for component in petgraph::algo::tarjan_scc(&graph) {
        let mut members: Vec<usize> = component.iter().map(|n| graph[*n]).collect();
        members.sort_unstable();
        let mut outside: Vec<Key> = members
            .iter()
            .flat_map(|&m| &calls[m])
            .filter(|c| !members.contains(c))
            .map(|&c| keys[c].expect("callees come first"))
            .collect();
        outside.sort_unstable();
        outside.dedup();
        for &m in &members {
            let mut h = Sha256::new();
            h.field(&configuration.0);
            h.field(&own[m].0);
            for &other in &members {
                h.field(&own[other].0);
            }
            for k in &outside {
                h.field(&k.0);
            }
            keys[m] = Some(Key(h.finish()));
        }
    }
    let mut h = Sha256::new();
    h.field(&configuration.0);
    for k in &own {
        h.field(&k.0);
    }
    h.field(format!("{:?}", module.callee_constants).as_bytes());
    // The native program is built from the inputs: what the IR does not show (the initial
    // values of globals an entry reads from memory) is in them.
    for input in &fe.inputs {
        match std::fs::read(input) {
            Ok(bytes) => h.field(&bytes),
            Err(e) => h.field(e.to_string().as_bytes()),
        }
    }
    let names = fe.entry.names();
    let has_main = module.functions.iter().any(|f| f.name == "main");
    let searches_program = module
        .functions
        .iter()
        .map(|f| {
            // The rule of the counterexample search (`cex::find_any_counterexample`).
            let is_entry = if names.is_empty() {
                f.name == "main" || !has_main
            } else {
                names.contains(&f.name.as_str())
            };
            !is_entry || called_names(f).iter().any(|n| n == "<indirect>")
        })
        .collect();
    ModuleKeys {
        functions: keys
            .into_iter()
            .map(|k| k.expect("every function keyed"))
            .collect(),
        program: Key(h.finish()),
        searches_program,
    }
}

/// The digest of `func` as analyzed: its exact IR with its checks numbered in the
/// function, and each check's kind, location and float precision.
fn own_digest(module: &Module, func: &Function) -> Key {
    let checks = func.checks();
    let mut local = func.clone();
    for block in &mut local.blocks {
        if let Terminator::Error(id) = &mut block.term {
            let index = checks.iter().position(|c| c == id).unwrap_or(checks.len());
            *id = CheckId(index as u32);
        }
    }
    let mut h = Sha256::new();
    h.field(format!("{local:#}").as_bytes());
    for id in &checks {
        let check = module.check(*id);
        let held = module.held_at_own_precision.contains(id);
        h.field(format!("{:?} {:?} {held}", check.kind, check.loc).as_bytes());
    }
    Key(h.finish())
}

/// The functions `func` calls (`<indirect>` for a call through a pointer).
fn called_names(func: &Function) -> Vec<String> {
    func.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|inst| match inst {
            Inst::Havoc {
                reason: HavocReason::UnknownCall { function },
                ..
            } => Some(function.clone()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{DataModel, EntrySelection, FrontendOptions};
    use crate::ir::{Check, CheckKind, CheckSelection};

    /// `caller` calls `callee` by name; `other` calls nothing. Each has one error site.
    fn module(callee_bound: i32, extra_check_first: bool) -> Module {
        let text = format!(
            "function extra() entry bb0
  bb0: ; b0
    error check0
function callee() entry bb0
  bb0: ; b0
    v0: i32 = havoc (nondet n)
    v1: i1 = icmp sle v0, {callee_bound}:i32
    branch v1 ? bb1 : bb2
  bb1: ; b1
    return
  bb2: ; b2
    error check1
function caller() entry bb0
  bb0: ; b0
    v0: i32 = havoc (unknown call callee)
    v1: i1 = icmp sle v0, 7:i32
    branch v1 ? bb1 : bb2
  bb1: ; b1
    return
  bb2: ; b2
    error check2
function other() entry bb0
  bb0: ; b0
    v0: i32 = havoc (nondet n)
    v1: i1 = icmp sle v0, 7:i32
    branch v1 ? bb1 : bb2
  bb1: ; b1
    return
  bb2: ; b2
    error check3
"
        );
        let mut functions = crate::ir::parse_functions(&text).unwrap();
        let mut checks: Vec<Check> = functions
            .iter()
            .map(|f| Check {
                id: f.checks()[0],
                kind: CheckKind::ErrorCall {
                    function: "reach_error".into(),
                },
                loc: None,
                function: f.name.clone(),
            })
            .collect();
        if !extra_check_first {
            // Without `extra`, every other check's id is one less.
            functions.remove(0);
            checks.remove(0);
            for (i, (f, c)) in functions.iter_mut().zip(&mut checks).enumerate() {
                for b in &mut f.blocks {
                    if let Terminator::Error(id) = &mut b.term {
                        *id = CheckId(i as u32);
                    }
                }
                c.id = CheckId(i as u32);
            }
        }
        Module {
            functions,
            checks,
            warnings: vec![],
            unanalyzable: vec![],
            callee_constants: vec![],
            held_at_own_precision: vec![],
            leaks: Default::default(),
            origins: Default::default(),
            called_only_directly: Default::default(),
        }
    }

    fn frontend() -> FrontendConfig {
        FrontendConfig {
            inputs: vec![],
            cflags: vec![],
            data_model: DataModel::Lp64,
            entry: EntrySelection::Default,
            inline_limit: 0,
            inline_caller_limit: 0,
            lift_limit: 0,
            checks: CheckSelection::ASSERT,
            options: FrontendOptions::DEFAULT,
        }
    }

    fn keys(module: &Module) -> BTreeMap<String, Key> {
        let keys = module_keys(module, Key([7; 32]), &frontend());
        module
            .functions
            .iter()
            .map(|f| f.name.clone())
            .zip(keys.functions)
            .collect()
    }

    #[test]
    fn a_key_follows_the_function_and_its_callees_only() {
        let before = keys(&module(5, true));
        assert_eq!(before, keys(&module(5, true)), "keys are deterministic");
        let after = keys(&module(6, true));
        assert_ne!(before["callee"], after["callee"]);
        assert_ne!(
            before["caller"], after["caller"],
            "a callee's change reaches its caller"
        );
        assert_eq!(before["other"], after["other"]);
        assert_eq!(before["extra"], after["extra"]);
    }

    #[test]
    fn a_key_does_not_follow_the_numbering_of_other_functions_checks() {
        let with = keys(&module(5, true));
        let without = keys(&module(5, false));
        for name in ["callee", "caller", "other"] {
            assert_eq!(with[name], without[name], "{name}");
        }
    }

    #[test]
    fn keys_read_back_from_hex() {
        let key = keys(&module(5, true))["caller"];
        assert_eq!(Key::from_hex(&key.hex()), Some(key));
        assert_eq!(Key::from_hex("zz"), None);
    }
}
