//! Whether the leak checks of a lifted program cover every object it may allocate
//! ([`ir::LeakCoverage`]), so that a program without a leak check is one without a leak.
//!
//! The whole program is covered when the memory checks are on, `main` is the only function
//! analyzed, its lifting followed leaks (`lift/leaks.rs`: every allocation in it is followed
//! or has a leak check of its own) and said nothing against it, no function is left out
//! as unanalyzable, and every block of `main` can reach an end of the program (a loop with
//! no way out is an execution that never ends, where an object lost is not seen).

use crate::ir::{self, Terminator};

/// The coverage of `module`'s leak checks, from the leak coverage each entry's lifting
/// reported (`None` for an entry where leaks were not followed).
pub(super) fn of_module(
    selection: ir::CheckSelection,
    module: &ir::Module,
    lifted: &[(String, Option<Result<(), String>>)],
) -> ir::LeakCoverage {
    if !selection.contains(ir::CheckClass::Memory) {
        return ir::LeakCoverage::NotChecked;
    }
    let partial = |why: String| ir::LeakCoverage::Partial(why);
    let Some((_, main)) = lifted.iter().find(|(name, _)| name == "main") else {
        return partial("the entry is not `main`".into());
    };
    match main {
        None => return partial("`main` could not be lifted with its leak checks".into()),
        Some(Err(why)) => return partial(why.clone()),
        Some(Ok(())) => {}
    }
    if let Some(other) = module.functions.iter().find(|f| f.name != "main") {
        return partial(format!(
            "`{}` is analyzed apart from `main`: the objects it allocates are not followed",
            other.name
        ));
    }
    if let Some(u) = module.unanalyzable.first() {
        return partial(format!("`{}` is not analyzed: {}", u.function, u.reason));
    }
    let Some(main) = module.functions.iter().find(|f| f.name == "main") else {
        return partial("the entry is not `main`".into());
    };
    if let Some(block) = never_ends(main) {
        return partial(format!(
            "`main` has a loop (block `{block}`) from which no end of the program is reachable: an object lost in an execution that never ends is not seen"
        ));
    }
    ir::LeakCoverage::Whole
}

/// The name of a block of `func` reachable from its entry from which no `return` and no
/// end of path is reachable, if there is one.
fn never_ends(func: &ir::Function) -> Option<String> {
    let n = func.blocks.len();
    let mut predecessors: Vec<Vec<usize>> = vec![vec![]; n];
    for (i, block) in func.blocks.iter().enumerate() {
        for s in block.term.successors() {
            predecessors[s.index()].push(i);
        }
    }
    // Backwards from the ends.
    let mut ends_reachable = vec![false; n];
    let mut work: Vec<usize> = (0..n)
        .filter(|&i| matches!(func.blocks[i].term, Terminator::Return | Terminator::Stop))
        .collect();
    for &i in &work {
        ends_reachable[i] = true;
    }
    while let Some(i) = work.pop() {
        for &p in &predecessors[i] {
            if !ends_reachable[p] {
                ends_reachable[p] = true;
                work.push(p);
            }
        }
    }
    // Forwards from the entry, skipping error sites (where an execution stops on an error).
    let mut seen = vec![false; n];
    let mut work = vec![func.entry.index()];
    seen[func.entry.index()] = true;
    while let Some(i) = work.pop() {
        let block = &func.blocks[i];
        if matches!(block.term, Terminator::Error(_)) {
            continue;
        }
        if !ends_reachable[i] {
            return Some(block.name.clone());
        }
        for s in block.term.successors() {
            if !seen[s.index()] {
                seen[s.index()] = true;
                work.push(s.index());
            }
        }
    }
    None
}
