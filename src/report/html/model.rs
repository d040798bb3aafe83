//! What the page shows, gathered once from the report: the files of each program with the
//! notes of each of their lines, the counts per file and kind, and where each check's mark
//! is (its anchor), so that the overview and the file sections agree.

use super::super::project::ProgramReport;
use crate::check::{Counterexample, LoopInvariant, MergedCheck, Verdict};
use crate::ir::SourceLoc;
use std::collections::{BTreeMap, BTreeSet};

/// Checks by verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Counts {
    pub proved: usize,
    pub violated: usize,
    pub holds_if: usize,
    pub unknown: usize,
}

impl Counts {
    pub fn add(&mut self, verdict: &Verdict) {
        match verdict {
            Verdict::Proved => self.proved += 1,
            Verdict::Violated(_) => self.violated += 1,
            Verdict::HoldsIf(_) => self.holds_if += 1,
            Verdict::Unknown(_) => self.unknown += 1,
        }
    }

    pub fn total(&self) -> usize {
        self.proved + self.violated + self.holds_if + self.unknown
    }

    pub fn merge(&mut self, other: &Counts) {
        self.proved += other.proved;
        self.violated += other.violated;
        self.holds_if += other.holds_if;
        self.unknown += other.unknown;
    }
}

/// A check with where its mark is.
pub(super) struct Placed<'a> {
    pub check: &'a MergedCheck,
    /// The program it belongs to.
    pub program: &'a ProgramReport,
    /// The id of its line (`p0-f3-L170`), or of its program's list of unplaced checks.
    pub anchor: String,
    /// The number of its counterexample in its program, when it is violated.
    pub cex_number: Option<usize>,
}

/// What is written beside one source line.
#[derive(Default)]
pub(super) struct LineNotes<'a> {
    /// The checks of the line, with their counterexample numbers.
    pub checks: Vec<(&'a MergedCheck, Option<usize>)>,
    /// Loop invariants whose head is on the line.
    pub loops: Vec<&'a LoopInvariant>,
    /// Counterexample steps on the line: `(counterexample number, step number, values)`.
    pub steps: Vec<(usize, usize, String)>,
    /// Counterexample inputs requested on the line: `(counterexample, input number, text)`.
    pub inputs: Vec<(usize, usize, String)>,
}

impl LineNotes<'_> {
    /// The worst verdict of the line's checks, as its class.
    pub fn verdict(&self) -> Option<&'static str> {
        let words: Vec<&str> = self
            .checks
            .iter()
            .map(|(c, _)| super::verdict_class(c.verdict()))
            .collect();
        super::VERDICT_CLASSES
            .into_iter()
            .find(|w| words.contains(w))
    }
}

/// One source file of one program.
pub(super) struct FileView<'a> {
    /// Its section's id, `p0-f3`.
    pub id: String,
    /// Its name as the locations spell it.
    pub path: &'a str,
    /// The notes of each line that has some.
    pub lines: BTreeMap<u32, LineNotes<'a>>,
    /// Its checks by verdict.
    pub counts: Counts,
    /// Whether the page holds its source: it has a finding or a counterexample step.
    pub show_source: bool,
}

/// One program: its files in path order and what has no line.
pub(super) struct ProgramView<'a> {
    pub index: usize,
    pub report: &'a ProgramReport,
    pub files: Vec<FileView<'a>>,
    pub unplaced_checks: Vec<(&'a MergedCheck, Option<usize>)>,
    pub unplaced_loops: Vec<&'a LoopInvariant>,
}

impl ProgramView<'_> {
    /// The id of the list of its checks without a line.
    pub fn unplaced_id(&self) -> String {
        format!("p{}-unplaced", self.index)
    }
}

/// A location with a usable line.
fn placed(loc: Option<&SourceLoc>) -> Option<&SourceLoc> {
    loc.filter(|l| l.line > 0)
}

/// The files of a program whose source the page shows: those with a check not proved or
/// a step or input of a counterexample.
pub(super) fn files_with_source(program: &ProgramReport) -> BTreeSet<&str> {
    let mut files = BTreeSet::new();
    for c in program.checks() {
        let Some(loc) = placed(c.loc()) else {
            continue;
        };
        match c.verdict() {
            Verdict::Proved => {}
            Verdict::Unknown(_) | Verdict::HoldsIf(_) => {
                files.insert(loc.file.as_str());
            }
            Verdict::Violated(cex) => {
                files.insert(loc.file.as_str());
                files.extend(trace_locations(cex).map(|l| l.file.as_str()));
            }
        }
    }
    files
}

fn trace_locations(cex: &Counterexample) -> impl Iterator<Item = &SourceLoc> {
    let steps = cex.steps.iter().filter_map(|s| placed(s.loc.as_ref()));
    let inputs = cex.inputs.iter().filter_map(|v| placed(v.loc.as_ref()));
    steps.chain(inputs)
}

/// Gathers the page's data: every program's files and notes, and every check placed.
pub(super) fn gather(programs: &[ProgramReport]) -> (Vec<ProgramView<'_>>, Vec<Placed<'_>>) {
    let mut views = Vec::new();
    let mut placed_checks = Vec::new();
    for (index, program) in programs.iter().enumerate() {
        let (view, mut placed) = gather_program(index, program);
        views.push(view);
        placed_checks.append(&mut placed);
    }
    (views, placed_checks)
}

fn gather_program(index: usize, program: &ProgramReport) -> (ProgramView<'_>, Vec<Placed<'_>>) {
    let with_source = files_with_source(program);
    let mut files: BTreeMap<&str, BTreeMap<u32, LineNotes>> = BTreeMap::new();
    let mut unplaced_checks = Vec::new();
    let mut unplaced_loops = Vec::new();
    let mut cex_numbers = Vec::new();
    let mut next_cex = 0;
    for c in program.checks() {
        let number = match c.verdict() {
            Verdict::Violated(cex) => {
                next_cex += 1;
                add_trace(&mut files, next_cex, cex);
                Some(next_cex)
            }
            _ => None,
        };
        cex_numbers.push(number);
        match placed(c.loc()) {
            Some(loc) => files
                .entry(&loc.file)
                .or_default()
                .entry(loc.line)
                .or_default()
                .checks
                .push((c, number)),
            None => unplaced_checks.push((c, number)),
        }
    }
    for inv in &program.analysis.loop_invariants {
        match placed(inv.loc.as_ref()) {
            Some(loc) => files
                .entry(&loc.file)
                .or_default()
                .entry(loc.line)
                .or_default()
                .loops
                .push(inv),
            None => unplaced_loops.push(inv),
        }
    }
    let mut file_ids: BTreeMap<&str, String> = BTreeMap::new();
    let files: Vec<FileView> = files
        .into_iter()
        .enumerate()
        .map(|(f, (path, lines))| {
            let id = format!("p{index}-f{f}");
            file_ids.insert(path, id.clone());
            let mut counts = Counts::default();
            for (c, _) in lines.values().flat_map(|n| &n.checks) {
                counts.add(c.verdict());
            }
            FileView {
                id,
                path,
                show_source: with_source.contains(path),
                lines,
                counts,
            }
        })
        .collect();
    let view = ProgramView {
        index,
        report: program,
        files,
        unplaced_checks,
        unplaced_loops,
    };
    let placed_checks = program
        .checks()
        .iter()
        .zip(cex_numbers)
        .map(|(c, cex_number)| {
            let anchor = match placed(c.loc()) {
                Some(loc) => format!("{}-L{}", file_ids[loc.file.as_str()], loc.line),
                None => view.unplaced_id(),
            };
            Placed {
                check: c,
                program,
                anchor,
                cex_number,
            }
        })
        .collect();
    (view, placed_checks)
}

/// Puts each input and step of a counterexample beside its line.
fn add_trace<'a>(
    files: &mut BTreeMap<&'a str, BTreeMap<u32, LineNotes<'a>>>,
    cex_number: usize,
    cex: &'a Counterexample,
) {
    let esc = super::esc;
    for (i, input) in cex.inputs.iter().enumerate() {
        let Some(loc) = placed(input.loc.as_ref()) else {
            continue;
        };
        files
            .entry(&loc.file)
            .or_default()
            .entry(loc.line)
            .or_default()
            .inputs
            .push((
                cex_number,
                i + 1,
                esc(&crate::cex::trace::input_text(input)),
            ));
    }
    let mut step_number = 0;
    for step in &cex.steps {
        if let [(name, n)] = step.values.as_slice() {
            if step.loc.is_none() && name == "<omitted steps>" {
                step_number += *n as usize;
                continue;
            }
        }
        step_number += 1;
        let Some(loc) = placed(step.loc.as_ref()) else {
            continue;
        };
        let values: Vec<String> = step
            .values
            .iter()
            .map(|(k, v)| format!("{}={v}", esc(k)))
            .collect();
        files
            .entry(&loc.file)
            .or_default()
            .entry(loc.line)
            .or_default()
            .steps
            .push((cex_number, step_number, values.join(" ")));
    }
}
