//! Cut points and the reduced control multigraph.
//!
//! **Architecture Invariant:** knows nothing about domains or SMT. An edge of the reduced
//! multigraph stands for the set of loop-free paths between two cut points; that set is
//! never materialized (it can be exponential): each cut point keeps its *region*, the blocks
//! reachable from it without passing through another cut point, in topological order, and
//! the analyses enumerate paths inside it on demand (or let the SMT solver pick one).
//!
//! Cut points are the entry block, the targets of DFS back edges (every cycle of a directed
//! graph contains a back edge of any DFS tree, so removing them leaves the graph acyclic),
//! error sites and exit blocks.

use crate::ir::{BlockId, CheckId, Function, Terminator};
use std::fmt;

/// Index of a cut point in [`ReducedGraph::cut_points`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct CutPointId(pub u32);

impl CutPointId {
    /// The dense index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for CutPointId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cp{}", self.0)
    }
}

/// Why a block is a cut point.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CutKind {
    /// The function's entry.
    Entry,
    /// The target of a back edge: a widening point.
    LoopHead,
    /// An error site.
    ErrorSite(CheckId),
    /// A block that returns or stops.
    Exit,
}

/// A node of the reduced multigraph.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CutPoint {
    /// The block it stands for.
    pub block: BlockId,
    /// Why it is a cut point.
    pub kind: CutKind,
}

/// The reduced multigraph of one function.
#[derive(Clone, Debug)]
pub struct ReducedGraph {
    /// All cut points, in reverse post-order of their blocks (entry first).
    pub cut_points: Vec<CutPoint>,
    /// The cut point of each block, if it is one.
    cut_of_block: Vec<Option<CutPointId>>,
    /// Per cut point: the blocks reachable from it without entering another cut point
    /// (starting with the cut point's own block), in topological order. Blocks that are
    /// cut points appear only as the first element or as targets, never in the middle.
    regions: Vec<Vec<BlockId>>,
    /// Per cut point: the cut points its region reaches, sorted.
    successors: Vec<Vec<CutPointId>>,
    /// Reverse post-order of all reachable blocks.
    rpo: Vec<BlockId>,
    /// Predecessors of each block (reachable ones only), sorted.
    predecessors: Vec<Vec<BlockId>>,
}

impl ReducedGraph {
    /// Builds the reduced multigraph of a function: every error site is a cut point.
    pub fn new(func: &Function) -> ReducedGraph {
        ReducedGraph::for_open_checks(func, |_| true)
    }

    /// Builds the reduced multigraph of a function in which only the error sites of the
    /// checks still open (`open(check)`) are cut points. The error block of a settled check
    /// stays in the region of the cut points that reach it, as a block without successors:
    /// a path into it ends there (an execution that reaches an error site ends), so it
    /// should reach no cut point and add nothing to any invariant.
    ///
    /// Not used yet: the stages of the driver share one graph, built before any check is
    /// settled, because the invariants they pass on (and certification) are indexed by its
    /// cut points. A stage that runs on the checks left open by a cheaper one
    /// builds its graph here, so that settled error sites do not multiply the cut points.
    /// Until now every block without successors was a cut point: before a stage uses this,
    /// the engines (the SMT region formula, the forward pass through regions) must be
    /// tested on regions with such dead ends.
    pub fn for_open_checks(func: &Function, open: impl Fn(CheckId) -> bool) -> ReducedGraph {
        let n = func.blocks.len();
        let (rpo, back_targets) = dfs(func);
        let mut kind: Vec<Option<CutKind>> = vec![None; n];
        for b in &rpo {
            kind[b.index()] = match func.block(*b).term {
                Terminator::Error(c) if open(c) => Some(CutKind::ErrorSite(c)),
                Terminator::Error(_) => None,
                Terminator::Return | Terminator::Stop => Some(CutKind::Exit),
                _ => None,
            };
        }
        for t in &back_targets {
            kind[t.index()] = Some(CutKind::LoopHead);
        }
        kind[func.entry.index()] = Some(CutKind::Entry);
        let mut cut_points = Vec::new();
        let mut cut_of_block = vec![None; n];
        for b in &rpo {
            if let Some(k) = kind[b.index()] {
                cut_of_block[b.index()] = Some(CutPointId(cut_points.len() as u32));
                cut_points.push(CutPoint { block: *b, kind: k });
            }
        }
        let mut predecessors = vec![Vec::new(); n];
        for b in &rpo {
            for s in func.block(*b).term.successors() {
                if !predecessors[s.index()].contains(b) {
                    predecessors[s.index()].push(*b);
                }
            }
        }
        for p in predecessors.iter_mut() {
            p.sort();
        }
        let rpo_index: Vec<usize> = {
            let mut idx = vec![usize::MAX; n];
            for (i, b) in rpo.iter().enumerate() {
                idx[b.index()] = i;
            }
            idx
        };
        let mut regions = Vec::new();
        let mut successors = Vec::new();
        for cp in &cut_points {
            // Blocks reachable from the cut point without entering another cut point; the
            // sub-graph is acyclic (every cycle goes through a loop head), so sorting by
            // reverse post-order of the whole graph is a topological order except for edges
            // back into the starting cut point, which end the region.
            let mut seen = vec![false; n];
            let mut stack = vec![cp.block];
            seen[cp.block.index()] = true;
            let mut inner = Vec::new();
            let mut targets = Vec::new();
            while let Some(b) = stack.pop() {
                inner.push(b);
                for s in func.block(b).term.successors() {
                    if let Some(c) = cut_of_block[s.index()] {
                        if !targets.contains(&c) {
                            targets.push(c);
                        }
                        continue;
                    }
                    if !seen[s.index()] {
                        seen[s.index()] = true;
                        stack.push(s);
                    }
                }
            }
            inner.sort_by_key(|b| rpo_index[b.index()]);
            // The starting block first, even if a back edge made it later in RPO.
            inner.retain(|b| *b != cp.block);
            inner.insert(0, cp.block);
            targets.sort();
            regions.push(inner);
            successors.push(targets);
        }
        ReducedGraph {
            cut_points,
            cut_of_block,
            regions,
            successors,
            rpo,
            predecessors,
        }
    }

    /// The cut point a block stands for, if any.
    pub fn cut_of_block(&self, b: BlockId) -> Option<CutPointId> {
        self.cut_of_block.get(b.index()).copied().flatten()
    }

    /// The cut point with this id.
    pub fn cut_point(&self, id: CutPointId) -> &CutPoint {
        &self.cut_points[id.index()]
    }

    /// All cut point ids.
    pub fn ids(&self) -> impl Iterator<Item = CutPointId> {
        (0..self.cut_points.len() as u32).map(CutPointId)
    }

    /// Blocks of the region of a cut point, topologically ordered, starting with its block.
    pub fn region(&self, id: CutPointId) -> &[BlockId] {
        &self.regions[id.index()]
    }

    /// Cut points reachable from `id` by a loop-free path.
    pub fn successors(&self, id: CutPointId) -> &[CutPointId] {
        &self.successors[id.index()]
    }

    /// Reachable blocks in reverse post-order.
    pub fn rpo(&self) -> &[BlockId] {
        &self.rpo
    }

    /// Reachable predecessors of a block.
    pub fn predecessors(&self, b: BlockId) -> &[BlockId] {
        &self.predecessors[b.index()]
    }

    /// True when the block is a loop head (a widening point).
    pub fn is_loop_head(&self, b: BlockId) -> bool {
        self.cut_of_block(b)
            .map_or(false, |c| self.cut_point(c).kind == CutKind::LoopHead)
    }

    /// Prints the cut points and the edges of the reduced multigraph.
    pub fn describe(&self, func: &Function) -> String {
        let mut out = String::new();
        for id in self.ids() {
            let cp = self.cut_point(id);
            let kind = match cp.kind {
                CutKind::Entry => "entry".to_string(),
                CutKind::LoopHead => "loop head".to_string(),
                CutKind::ErrorSite(c) => format!("error site of {c}"),
                CutKind::Exit => "exit".to_string(),
            };
            let succ: Vec<String> = self.successors(id).iter().map(|s| s.to_string()).collect();
            out.push_str(&format!(
                "  {id} = {} ({}) ; {kind} -> [{}]\n",
                cp.block,
                func.block(cp.block).name,
                succ.join(", ")
            ));
        }
        out
    }

    /// Graphviz rendering of the reduced multigraph.
    pub fn to_dot(&self, func: &Function) -> String {
        let mut out = format!("digraph \"{}\" {{\n", func.name);
        for id in self.ids() {
            let cp = self.cut_point(id);
            let shape = match cp.kind {
                CutKind::ErrorSite(_) => "octagon",
                CutKind::LoopHead => "doublecircle",
                _ => "box",
            };
            // The source line where the cut point's block starts, when debug info has it.
            let block = func.block(cp.block);
            let line = block
                .locs
                .iter()
                .flatten()
                .next()
                .or(block.term_loc.as_ref())
                .filter(|l| l.line > 0)
                .map(|l| {
                    let file = l.file.replace('\\', "\\\\").replace('"', "\\\"");
                    format!("\\n{file}:{}", l.line)
                })
                .unwrap_or_default();
            out.push_str(&format!(
                "  {id} [label=\"{id}\\n{}{line}\" shape={shape}];\n",
                cp.block
            ));
            for s in self.successors(id) {
                out.push_str(&format!("  {id} -> {s};\n"));
            }
        }
        out.push_str("}\n");
        out
    }
}

/// Iterative DFS from the entry: reverse post-order and the targets of back edges.
fn dfs(func: &Function) -> (Vec<BlockId>, Vec<BlockId>) {
    let n = func.blocks.len();
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnStack,
        Done,
    }
    let mut mark = vec![Mark::New; n];
    let mut post = Vec::new();
    let mut back_targets = Vec::new();
    let succs: Vec<Vec<BlockId>> = func.blocks.iter().map(|b| b.term.successors()).collect();
    let mut stack: Vec<(BlockId, usize)> = vec![(func.entry, 0)];
    mark[func.entry.index()] = Mark::OnStack;
    while let Some((b, i)) = stack.last_mut() {
        let b = *b;
        if let Some(s) = succs[b.index()].get(*i).copied() {
            *i += 1;
            match mark[s.index()] {
                Mark::New => {
                    mark[s.index()] = Mark::OnStack;
                    stack.push((s, 0));
                }
                Mark::OnStack => {
                    if !back_targets.contains(&s) {
                        back_targets.push(s);
                    }
                }
                Mark::Done => {}
            }
        } else {
            mark[b.index()] = Mark::Done;
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    back_targets.sort();
    (post, back_targets)
}

#[cfg(test)]
mod tests {
    use super::{CutKind, ReducedGraph};
    use crate::ir::{
        Block, BlockId, CheckId, Edge, Function, Operand, Terminator, Ty, ValueId, ValueInfo,
    };

    fn block(name: &str, term: Terminator) -> Block {
        Block {
            name: name.into(),
            insts: vec![],
            locs: vec![],
            term,
            term_loc: None,
        }
    }

    fn edge(b: u32) -> Edge {
        Edge {
            target: BlockId(b),
            moves: vec![],
        }
    }

    /// `entry: br c, e0, next; next: br c, e1, ret`, with two error sites.
    fn two_checks() -> Function {
        let c = Operand::Value(ValueId(0));
        let branch = |t: u32, e: u32| Terminator::Branch {
            cond: c.clone(),
            then_edge: edge(t),
            else_edge: edge(e),
        };
        Function {
            name: "f".into(),
            params: vec![ValueId(0)],
            values: vec![ValueInfo {
                ty: Ty::BOOL,
                name: "c".into(),
                source_name: None,
            }],
            blocks: vec![
                block("entry", branch(1, 2)),
                block("e0", Terminator::Error(CheckId(0))),
                block("next", branch(3, 4)),
                block("e1", Terminator::Error(CheckId(1))),
                block("ret", Terminator::Return),
            ],
            entry: BlockId(0),
            loc: None,
            bases: vec![],
        }
    }

    #[test]
    fn every_error_site_is_a_cut_point_by_default() {
        let g = ReducedGraph::new(&two_checks());
        let kinds: Vec<CutKind> = g.cut_points.iter().map(|c| c.kind).collect();
        assert!(kinds.contains(&CutKind::ErrorSite(CheckId(0))));
        assert!(kinds.contains(&CutKind::ErrorSite(CheckId(1))));
        assert_eq!(g.cut_points.len(), 4);
    }

    #[test]
    fn a_settled_error_site_is_a_dead_end_inside_a_region() {
        let f = two_checks();
        let g = ReducedGraph::for_open_checks(&f, |c| c == CheckId(1));
        assert_eq!(g.cut_points.len(), 3);
        assert_eq!(g.cut_of_block(BlockId(1)), None);
        let entry = g.cut_of_block(f.entry).unwrap();
        // The region of the entry keeps the settled error block, which leads nowhere.
        assert!(g.region(entry).contains(&BlockId(1)));
        let open = g.cut_of_block(BlockId(3)).unwrap();
        assert!(g.successors(entry).contains(&open));
        assert_eq!(g.successors(entry).len(), 2);
    }
}
