//! `entry-not-an-error-site`: the entry block is never an error site.
//!
//! A function whose first straight-line code reaches an error function (`reach_error();`
//! before any branch, or an assertion on constants) has its error site in the entry block.
//! The reduced graph gives a block one kind of cut point, and the entry's kind wins, so
//! such an error site had no cut point of its own, and a stage that looks for the paths
//! *into* an error site found none: `int main(void) { reach_error(); }` was proved (the
//! congruence stage; found by the soundness generator on a `qsort` comparator). A new,
//! empty entry block that jumps to the old one gives the error site a cut point like any
//! other, reached by a path from the entry.

use super::Pass;
use crate::ir::{Block, BlockId, Edge, Function, Terminator};

/// See the module documentation.
pub struct EntryNotAnErrorSite;

impl Pass for EntryNotAnErrorSite {
    fn name(&self) -> &'static str {
        "entry-not-an-error-site"
    }

    fn invariant(&self) -> &'static str {
        "the entry block does not end at an error site"
    }

    fn run(&self, func: Function) -> Function {
        separate_entry(func)
    }
}

/// `func` with an empty entry block in front when its entry block is an error site.
pub fn separate_entry(mut func: Function) -> Function {
    if !matches!(func.block(func.entry).term, Terminator::Error(_)) {
        return func;
    }
    let old = func.entry;
    let loc = func.block(old).term_loc.clone();
    let start = BlockId(func.blocks.len() as u32);
    func.blocks.push(Block {
        name: "entry.start".to_string(),
        insts: vec![],
        locs: vec![],
        term: Terminator::Jump(Edge {
            target: old,
            moves: vec![],
        }),
        term_loc: loc,
    });
    func.entry = start;
    func
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{CutKind, ReducedGraph};
    use crate::ir::CheckId;

    fn error_at_entry() -> Function {
        Function {
            name: "f".into(),
            params: vec![],
            values: vec![],
            blocks: vec![Block {
                name: "entry".into(),
                insts: vec![],
                locs: vec![],
                term: Terminator::Error(CheckId(0)),
                term_loc: None,
            }],
            entry: BlockId(0),
            loc: None,
            bases: vec![],
        }
    }

    #[test]
    fn the_error_site_gets_a_cut_point_reached_from_the_entry() {
        let before = ReducedGraph::new(&error_at_entry());
        assert!(!before
            .cut_points
            .iter()
            .any(|c| c.kind == CutKind::ErrorSite(CheckId(0))));
        let func = separate_entry(error_at_entry());
        assert!(crate::ir::verify(&func).is_empty());
        let graph = ReducedGraph::new(&func);
        let error = graph
            .cut_points
            .iter()
            .position(|c| c.kind == CutKind::ErrorSite(CheckId(0)))
            .expect("an error cut point");
        let entry = graph.cut_of_block(func.entry).expect("entry cut point");
        assert!(graph
            .successors(entry)
            .contains(&crate::graph::CutPointId(error as u32)));
    }
}
