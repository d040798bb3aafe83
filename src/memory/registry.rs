//! The list of segment kinds, and the rules of which kind wins where two would describe
//! one cell ([`Kinds::choose`]). A new kind is a module implementing `kind::SegmentKind`, a
//! variant of [`Kind`], a place in the orders below, and its rules against the others.
//!
//! The rules are about cost, never soundness (every segment keeps its invariant whatever
//! else is chosen): each segment costs the engines its updates at every store to its cell,
//! so a cell gets only the kinds that say what its assertions read.

use std::collections::BTreeSet;
use std::ops::Range;

use super::cells::{Aliasing, CellId, Cells};
use super::contents::{self, Contents};
use super::copies::{self, Copies};
use super::emit::I64;
use super::kind::SegmentKind;
use super::memo::Numbering;
use super::pairs::{self, Pairs};
use super::phis::Track;
use super::predicates::{self, Predicates};
use super::segments::{self, Constants};
use crate::ir::{Function, Ty};

/// The kinds of segments, in the order of their tracks (and of their phis).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Every element holds a constant (`segments.rs`).
    Constant,
    /// Every element equals another cell's at the same offset (`copies.rs`).
    Copy,
    /// Every element satisfies an assertion's condition (`predicates.rs`).
    Predicate,
    /// Every element is a polynomial of its index (`contents.rs`).
    Content,
    /// Every two elements of two cells at one offset satisfy a condition (`pairs.rs`).
    Pair,
}

/// The order in which the kinds see a load: the order of the variants. A value kind
/// (constants, copies, contents) overrides what the ones before it read inside its
/// segments (each override is the element's value there, so any order is sound).
const LOAD_ORDER: [Kind; 5] = [
    Kind::Constant,
    Kind::Copy,
    Kind::Predicate,
    Kind::Content,
    Kind::Pair,
];

/// The order in which the kinds see a store. Each kind's update reads only its own bounds,
/// so the order fixes only the order of the instructions the updates emit.
const STORE_ORDER: [Kind; 5] = [
    Kind::Copy,
    Kind::Predicate,
    Kind::Pair,
    Kind::Content,
    Kind::Constant,
];

/// The order in which the kinds emit their facts at the end of a block (each kind's in the
/// order of its loads); the facts are assumptions about values already defined, so the
/// order fixes only the order of the instructions.
const FACT_ORDER: [Kind; 3] = [Kind::Predicate, Kind::Pair, Kind::Content];

/// The segment kinds of one function, with the segments each chose.
pub struct Kinds {
    /// One per [`Kind`], in the order of the variants.
    list: Vec<Box<dyn SegmentKind>>,
    /// The index of each kind's first segment in the numbering of every kind's segments.
    first: Vec<usize>,
}

impl Kinds {
    /// The segments of `func`, each kind's candidates filtered by the rules below.
    pub fn choose(
        func: &Function,
        cells: &Cells,
        numbering: &Numbering,
        aliasing: &Aliasing,
    ) -> Kinds {
        let (mut properties, compared) = predicates::choose(func, cells, numbering);
        let mut pairs = pairs::choose(func, cells, numbering);
        let defs = contents::Defs::new(func);
        let mut chosen_contents = contents::choose(func, cells, numbering, &defs);
        // A cell of a pair (a candidate, also one dropped below for aliasing) gets no
        // contents: the pair's property is what its assertions read, and each content costs
        // the engines its updates at every store (a pair over two arrays filled with
        // `a[i] = i` took 7 times longer with them).
        chosen_contents.retain(|k| !pairs.iter().any(|p| p.partner(k.cell).is_some()));
        // Nor does a cell with a property that is no equality (`b[i] >= i`): the property is
        // what its assertions read, it may hold where no content does (`b[i - 1] = b[i]`
        // cuts the content `i` but keeps `b[k] >= k`), and both together cost the engines
        // more than the budget (a 1 s proof became an unknown after 9 s).
        chosen_contents.retain(|k| {
            !properties
                .iter()
                .any(|p| p.cell == k.cell && !p.is_equality())
        });
        // A cell whose assertions are all properties (none compares an element with a
        // constant) gets no constant segments: the property is what its assertions read,
        // and each constant segment costs the engines a handful of joins at every store
        // (`a[i*3] = 7; a[i*3+1] = 3; ...` cuts them at every other store anyway).
        let served: BTreeSet<CellId> = properties
            .iter()
            .map(|p| p.cell)
            .filter(|c| !compared.contains(c))
            .collect();
        let mut constants = segments::choose(func, cells);
        constants.retain(|s| !served.contains(&s.cell));
        // Likewise a cell with a content that depends on the index gets no constant
        // segments (its elements differ, and the content is what its loads read), nor
        // predicate segments: it has only equalities (above), and what such an assertion
        // states of its elements is what the content gives (`b[i] == i * i + i + 1`).
        let indexed: BTreeSet<CellId> = chosen_contents
            .iter()
            .filter(|k| !k.is_constant())
            .map(|k| k.cell)
            .collect();
        constants.retain(|s| !indexed.contains(&s.cell));
        properties.retain(|p| !indexed.contains(&p.cell));
        // Copies share the constant segments' budget.
        let budget = segments::MAX_SEGMENTS.saturating_sub(constants.len());
        let copies = copies::choose(func, cells, &|b| aliasing.aliased_by_write(b), budget);
        // Two bases that may be one object (pointer parameters) have no pair: a store to
        // one would write the other's element too (`pairs.rs`).
        pairs.retain(|p| {
            let (a, b) = (cells.cells[p.a.0].base, cells.cells[p.b.0].base);
            !aliasing.aliased_by_write(a).contains(&b) && !aliasing.aliased_by_write(b).contains(&a)
        });
        // In the order of the variants of `Kind`.
        let list: Vec<Box<dyn SegmentKind>> = vec![
            Box::new(Constants::new(constants)),
            Box::new(Copies::new(func, cells, copies)),
            Box::new(Predicates::new(func, properties)),
            Box::new(Contents::new(func, cells, numbering, defs, chosen_contents)),
            Box::new(Pairs::new(func, cells, numbering, pairs)),
        ];
        let mut first = Vec::with_capacity(list.len());
        let mut n = 0;
        for kind in &list {
            first.push(n);
            n += kind.len();
        }
        Kinds { list, first }
    }

    /// The number of segments of every kind.
    pub fn n_segments(&self) -> usize {
        self.first.last().copied().unwrap_or(0) + self.list.last().map_or(0, |k| k.len())
    }

    /// Every kind (in the order of the variants), each with its index and its segments'
    /// numbers.
    pub fn all(&self) -> impl Iterator<Item = (usize, &dyn SegmentKind, Range<usize>)> {
        self.in_order(&LOAD_ORDER)
    }

    /// The kinds in the order in which they see a load, each with its segments' numbers.
    pub fn for_load(&self) -> impl Iterator<Item = (usize, &dyn SegmentKind, Range<usize>)> {
        self.in_order(&LOAD_ORDER)
    }

    /// The kinds in the order in which they see a store.
    pub fn for_store(&self) -> impl Iterator<Item = (usize, &dyn SegmentKind, Range<usize>)> {
        self.in_order(&STORE_ORDER)
    }

    /// The kinds in the order in which they emit their facts.
    pub fn for_facts(&self) -> impl Iterator<Item = (usize, &dyn SegmentKind, Range<usize>)> {
        self.in_order(&FACT_ORDER)
    }

    /// The kind of segment `s` (in the numbering of every kind's segments), and its number
    /// among the kind's own.
    fn segment(&self, s: usize) -> (&dyn SegmentKind, usize) {
        let k = self.first.partition_point(|&f| f <= s) - 1;
        (self.list[k].as_ref(), s - self.first[k])
    }

    /// The tracks: every cell's value, then both bounds of every segment.
    pub fn tracks(&self, cells: &Cells) -> Vec<Track> {
        let cells = (0..cells.cells.len()).map(|c| Track::Cell(CellId(c)));
        let bounds = (0..self.n_segments()).flat_map(|s| [Track::Lo(s), Track::Hi(s)]);
        cells.chain(bounds).collect()
    }

    /// The type of a track's values.
    pub fn track_ty(&self, t: Track, cells: &Cells) -> Ty {
        match t {
            Track::Cell(c) => cells.cells[c.0].ty,
            Track::Lo(_) | Track::Hi(_) => I64,
        }
    }

    /// The name of a track's phis: its cell's, or its segment's with `.lo` or `.hi`.
    pub fn track_name(&self, t: Track, cell_name: &dyn Fn(CellId) -> String) -> String {
        let (s, end) = match t {
            Track::Cell(c) => return cell_name(c),
            Track::Lo(s) => (s, "lo"),
            Track::Hi(s) => (s, "hi"),
        };
        let (kind, j) = self.segment(s);
        format!("{}.{end}", kind.name(j, cell_name))
    }

    /// The kinds of `order`, each with its index (into per-kind tables such as the notes)
    /// and the range of its segments' numbers.
    fn in_order<'k>(
        &'k self,
        order: &'k [Kind],
    ) -> impl Iterator<Item = (usize, &'k dyn SegmentKind, Range<usize>)> + 'k {
        order.iter().map(move |kind| {
            let k = *kind as usize;
            let kind = self.list[k].as_ref();
            (k, kind, self.first[k]..self.first[k] + kind.len())
        })
    }

    /// The number of kinds.
    pub fn n_kinds(&self) -> usize {
        self.list.len()
    }
}
