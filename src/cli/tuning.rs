//! The `-Z name=value` options: the switches of internal techniques, the tunables of
//! [`crate::params::Params`] and the aids for measuring and debugging, kept out of the
//! user's flags (as rustc does). `polyfocus check -Z help` lists them.
//!
//! Each option is defined once, in [`OPTIONS`]: its name, the kind of its value, the part
//! of the run it configures, one line of help, and how it reads and writes a [`Tuning`].
//! The default shown by `-Z help` is read from [`Tuning::DEFAULT`], itself made of
//! [`Params::DEFAULT`] and the front end's defaults, so it cannot drift from what a run
//! uses. An unknown name or a bad value is an error of the command line (exit 3).

use crate::driver::{DomainKind, Engine};
use crate::frontend::{ContractTrace, FrontendOptions};
use crate::params::Params;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

/// Everything the `-Z` options set, with the defaults where none is given.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuning {
    /// The fixpoint engine.
    pub engine: Engine,
    /// The numeric domain, before predicates.
    pub domain: DomainArg,
    /// Whether the program's booleans are tracked as predicates (`None`: when the domain
    /// says so, `poly-pred` and `interval-pred`).
    predicates: Predicates,
    /// How predicates combine with the numeric domain.
    pub pred_domain: PredDomain,
    /// Predicate refinement of what path focusing leaves open.
    pub refine: bool,
    /// The tunables of the analysis.
    pub params: Params,
    /// Callees larger than this many instructions are not inlined.
    pub inline_limit: usize,
    /// A caller grows by inlining to at most this many instructions.
    pub inline_caller_limit: usize,
    /// Functions larger than this many instructions after inlining are not lifted.
    pub lift_limit: usize,
    /// The front end's switches for measuring and debugging.
    pub frontend: FrontendOptions,
    /// Where to record a sample of the polyhedra operations.
    pub record_polyhedra: Option<PathBuf>,
}

impl Tuning {
    /// The defaults of every option.
    pub const DEFAULT: Tuning = Tuning {
        engine: Engine::Focus,
        domain: DomainArg::Poly,
        predicates: Predicates(None),
        pred_domain: PredDomain::Partitioned,
        refine: true,
        params: Params::DEFAULT,
        inline_limit: crate::frontend::INLINE_LIMIT,
        inline_caller_limit: crate::frontend::INLINE_CALLER_LIMIT,
        lift_limit: crate::frontend::LIFT_LIMIT,
        frontend: FrontendOptions::DEFAULT,
        record_polyhedra: None,
    };

    /// The defaults with `settings` applied in order (a later setting of the same option
    /// wins); an error names an option that does not apply to a command of `scope`.
    pub fn from_settings(settings: &[Setting], scope: Scope) -> Result<Tuning, String> {
        let mut tuning = Tuning::DEFAULT;
        for setting in settings {
            let option = &OPTIONS[setting.option];
            if !scope.admits(option.part) {
                return Err(format!(
                    "-Z {} does not apply to this command ({})",
                    option.name,
                    option.part.what()
                ));
            }
            (option.set)(&mut tuning, &setting.value)
                .map_err(|e| format!("-Z {}={}: {e}", option.name, setting.value))?;
        }
        Ok(tuning)
    }

    /// The domain the `domain`, `predicates` and `pred-domain` options select.
    pub fn domain_kind(&self) -> DomainKind {
        let poly = matches!(self.domain, DomainArg::Poly | DomainArg::PolyPred);
        let predicates = self.predicates.0.unwrap_or(matches!(
            self.domain,
            DomainArg::PolyPred | DomainArg::IntervalPred
        ));
        let product = self.pred_domain == PredDomain::Product;
        match (poly, predicates, product) {
            (true, false, _) => DomainKind::Poly,
            (false, false, _) => DomainKind::Interval,
            (true, true, false) => DomainKind::PolyPred,
            (true, true, true) => DomainKind::PolyPredProduct,
            (false, true, false) => DomainKind::IntervalPred,
            (false, true, true) => DomainKind::IntervalPredProduct,
        }
    }
}

/// One `-Z name=value` of the command line, checked: the option exists and the value is
/// one of its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// Its index in [`OPTIONS`].
    option: usize,
    value: String,
}

impl Setting {
    /// The setting as written on a command line (`name=value`).
    pub fn as_arg(&self) -> String {
        format!("{}={}", OPTIONS[self.option].name, self.value)
    }
}

/// Parses `name=value` (a switch may be given as `name` alone: on).
pub fn parse_setting(text: &str) -> Result<Setting, String> {
    let (name, value) = match text.split_once('=') {
        Some((name, value)) => (name.trim(), value.trim()),
        None => (text.trim(), ""),
    };
    let Some(option) = OPTIONS.iter().position(|o| o.name == name) else {
        return Err(match suggestion(name) {
            Some(near) => {
                format!("unknown -Z option `{name}` (did you mean `{near}`?); see -Z help")
            }
            None => format!("unknown -Z option `{name}`; see -Z help"),
        });
    };
    let value = match value {
        "" if OPTIONS[option].kind == OnOff::NAME => "on",
        "" => {
            return Err(format!(
                "-Z {name} needs a value: -Z {name}={}",
                OPTIONS[option].kind
            ))
        }
        value => value,
    };
    // The value is checked now, so that a bad one is an error of the command line.
    (OPTIONS[option].set)(&mut Tuning::DEFAULT.clone(), value)
        .map_err(|e| format!("{name}: {e}"))?;
    Ok(Setting {
        option,
        value: value.to_string(),
    })
}

/// The option whose name is closest to `name` (one letter off, or a prefix), if any.
fn suggestion(name: &str) -> Option<&'static str> {
    OPTIONS
        .iter()
        .map(|o| o.name)
        .find(|o| (!name.is_empty() && o.starts_with(name)) || edit_distance(o, name) <= 2)
}

/// The Levenshtein distance of two short names.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The text of `-Z help`.
pub fn help_text() -> String {
    let mut out = String::from(
        "Internal options, for measuring and debugging: -Z NAME=VALUE (repeatable; the last\n\
         setting of an option wins; a switch given as -Z NAME alone is on).\n",
    );
    for part in [Part::Analysis, Part::FrontEnd, Part::Diagnostics] {
        let _ = writeln!(out, "\n{}:", part.title());
        for o in OPTIONS.iter().filter(|o| o.part == part) {
            let _ = writeln!(
                out,
                "  {}={}  [default: {}]\n      {}",
                o.name,
                o.kind,
                (o.get)(&Tuning::DEFAULT),
                o.help
            );
        }
    }
    out
}

/// Whether the command line asks for `-Z help` (in any spelling clap accepts), which is
/// answered before the other arguments are checked.
pub fn asks_for_help(args: &[String]) -> bool {
    args.iter().enumerate().any(|(i, a)| {
        matches!(a.as_str(), "-Zhelp" | "-Z=help")
            || (a == "-Z" && args.get(i + 1).is_some_and(|v| v == "help"))
    })
}

/// Which part of a run an option configures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// The analysis: engines, domains, stages and their budgets.
    Analysis,
    /// Compiling, inlining and lifting.
    FrontEnd,
    /// What is printed or recorded for a person studying a run, and injected faults.
    Diagnostics,
}

impl Part {
    fn title(self) -> &'static str {
        match self {
            Part::Analysis => "Analysis",
            Part::FrontEnd => "Front end",
            Part::Diagnostics => "Measuring and debugging",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Part::Analysis => "it configures the analysis, which this command does not run",
            Part::FrontEnd => "it configures the front end",
            Part::Diagnostics => "it configures a diagnostic of the analysis",
        }
    }
}

/// Which options a command takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every option (`check`, `invariants`, `scan`, `svcomp`).
    Analysis,
    /// The front end's options only (`ir`).
    FrontEnd,
}

impl Scope {
    fn admits(self, part: Part) -> bool {
        match self {
            Scope::Analysis => true,
            Scope::FrontEnd => part == Part::FrontEnd,
        }
    }
}

/// One `-Z` option.
struct ZOption {
    name: &'static str,
    /// The values it takes, as `-Z help` shows them.
    kind: &'static str,
    part: Part,
    help: &'static str,
    get: fn(&Tuning) -> String,
    set: fn(&mut Tuning, &str) -> Result<(), String>,
}

/// The kind of an option's value: how it is read and shown.
trait Kind {
    type Value;
    /// The values it takes, as `-Z help` shows them.
    const NAME: &'static str;
    fn parse(text: &str) -> Result<Self::Value, String>;
    fn show(value: &Self::Value) -> String;
}

/// `on` or `off`.
struct OnOff;

impl Kind for OnOff {
    type Value = bool;
    const NAME: &'static str = "on|off";
    fn parse(text: &str) -> Result<bool, String> {
        match text {
            "on" => Ok(true),
            "off" => Ok(false),
            _ => Err("expected `on` or `off`".into()),
        }
    }
    fn show(value: &bool) -> String {
        if *value { "on" } else { "off" }.into()
    }
}

/// A whole number of type `T` (0 allowed; where 0 means "none", the help says so).
struct Whole<T>(std::marker::PhantomData<T>);

impl<T: std::str::FromStr + ToString> Kind for Whole<T> {
    type Value = T;
    const NAME: &'static str = "N";
    fn parse(text: &str) -> Result<T, String> {
        text.parse()
            .map_err(|_| "expected a whole number (0 or more)".into())
    }
    fn show(value: &T) -> String {
        value.to_string()
    }
}

/// A count of items or rounds.
type Count = Whole<usize>;
/// A count of steps or of solver work units.
type Steps = Whole<u64>;
/// A small count (widening delays, encoding units).
type SmallCount = Whole<u32>;

/// A degree of polynomials, at most 16 (a template of degree 16 over two variables already
/// has 153 monomials).
struct Degree;

impl Kind for Degree {
    type Value = u32;
    const NAME: &'static str = "N";
    fn parse(text: &str) -> Result<u32, String> {
        match text.parse::<u32>() {
            Ok(d) if d <= 16 => Ok(d),
            _ => Err("expected a degree from 0 to 16".into()),
        }
    }
    fn show(value: &u32) -> String {
        value.to_string()
    }
}

/// A positive duration in seconds.
struct Seconds;

impl Kind for Seconds {
    type Value = Duration;
    const NAME: &'static str = "SECONDS";
    fn parse(text: &str) -> Result<Duration, String> {
        super::args::parse_seconds(text).map(Duration::from_secs_f64)
    }
    fn show(value: &Duration) -> String {
        format!("{}", value.as_secs_f64())
    }
}

/// A share of a budget, in (0, 1].
struct Share;

impl Kind for Share {
    type Value = f64;
    const NAME: &'static str = "FRACTION";
    fn parse(text: &str) -> Result<f64, String> {
        match text.parse::<f64>() {
            Ok(x) if x > 0.0 && x <= 1.0 => Ok(x),
            _ => Err("expected a number greater than 0 and at most 1".into()),
        }
    }
    fn show(value: &f64) -> String {
        value.to_string()
    }
}

/// A positive rate (steps per second).
struct Rate;

impl Kind for Rate {
    type Value = f64;
    const NAME: &'static str = "N";
    fn parse(text: &str) -> Result<f64, String> {
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 && x <= 1e15 => Ok(x),
            _ => Err("expected a number from 0 to 1e15".into()),
        }
    }
    fn show(value: &f64) -> String {
        value.to_string()
    }
}

/// A file to write.
struct File;

impl Kind for File {
    type Value = Option<PathBuf>;
    const NAME: &'static str = "FILE";
    fn parse(text: &str) -> Result<Option<PathBuf>, String> {
        if text.is_empty() {
            return Err("expected a file name".into());
        }
        Ok(Some(PathBuf::from(text)))
    }
    fn show(value: &Option<PathBuf>) -> String {
        value
            .as_ref()
            .map_or("none".into(), |p| p.display().to_string())
    }
}

/// A value named by one of a fixed set of words.
trait Named: Copy + PartialEq + 'static {
    /// The words, each with its value, in the order `-Z help` lists them.
    const WORDS: &'static [(&'static str, Self)];
    /// The words as `-Z help` shows them (`a|b|c`).
    const NAME: &'static str;
}

/// A value of a [`Named`] type.
struct Choice<T>(std::marker::PhantomData<T>);

impl<T: Named> Kind for Choice<T> {
    type Value = T;
    const NAME: &'static str = T::NAME;
    fn parse(text: &str) -> Result<T, String> {
        T::WORDS
            .iter()
            .find(|(word, _)| *word == text)
            .map(|(_, value)| *value)
            .ok_or_else(|| {
                let words: Vec<String> = T::WORDS.iter().map(|(w, _)| format!("`{w}`")).collect();
                format!("expected one of {}", words.join(", "))
            })
    }
    fn show(value: &T) -> String {
        T::WORDS
            .iter()
            .find(|(_, v)| v == value)
            .map_or_else(String::new, |(word, _)| word.to_string())
    }
}

impl Named for Engine {
    const WORDS: &'static [(&'static str, Engine)] =
        &[("focus", Engine::Focus), ("classic", Engine::Classic)];
    const NAME: &'static str = "focus|classic";
}

/// The numeric domain as `-Z domain` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DomainArg {
    /// Convex polyhedra.
    Poly,
    /// Intervals.
    Interval,
    /// Polyhedra with the program's booleans as predicates.
    PolyPred,
    /// Intervals with the program's booleans as predicates.
    IntervalPred,
}

impl Named for DomainArg {
    const WORDS: &'static [(&'static str, DomainArg)] = &[
        ("poly", DomainArg::Poly),
        ("interval", DomainArg::Interval),
        ("poly-pred", DomainArg::PolyPred),
        ("interval-pred", DomainArg::IntervalPred),
    ];
    const NAME: &'static str = "poly|interval|poly-pred|interval-pred";
}

/// Whether the program's booleans are predicates: `auto` (from the domain), `on` or `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Predicates(Option<bool>);

impl Named for Predicates {
    const WORDS: &'static [(&'static str, Predicates)] = &[
        ("auto", Predicates(None)),
        ("on", Predicates(Some(true))),
        ("off", Predicates(Some(false))),
    ];
    const NAME: &'static str = "auto|on|off";
}

/// How predicates combine with the numeric domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PredDomain {
    /// One numeric state per set of predicate valuations (NEX).
    Partitioned,
    /// One BDD and one numeric state (NEXPOINT).
    Product,
}

impl Named for PredDomain {
    const WORDS: &'static [(&'static str, PredDomain)] = &[
        ("partitioned", PredDomain::Partitioned),
        ("product", PredDomain::Product),
    ];
    const NAME: &'static str = "partitioned|product";
}

impl Named for ContractTrace {
    const WORDS: &'static [(&'static str, ContractTrace)] = &[
        ("off", ContractTrace::Off),
        ("rounds", ContractTrace::Rounds),
        ("modules", ContractTrace::Modules),
    ];
    const NAME: &'static str = "off|rounds|modules";
}

/// One option: its name, kind, part, help and the field of [`Tuning`] it sets.
macro_rules! option {
    ($name:literal, $kind:ty, $part:ident, $help:literal, $($field:ident).+) => {
        ZOption {
            name: $name,
            kind: <$kind as Kind>::NAME,
            part: Part::$part,
            help: $help,
            get: |t| <$kind as Kind>::show(&t.$($field).+),
            set: |t, v| {
                t.$($field).+ = <$kind as Kind>::parse(v)?;
                Ok(())
            },
        }
    };
}

/// Every `-Z` option, in the order `-Z help` lists them within each part.
const OPTIONS: &[ZOption] = &[
    option!("engine", Choice<Engine>, Analysis,
        "Fixpoint engine: path focusing over the reduced multigraph, or worklist iteration with widening at loop heads",
        engine),
    option!("domain", Choice<DomainArg>, Analysis,
        "Numeric domain: convex polyhedra or intervals, optionally with the program's booleans as predicates",
        domain),
    option!("predicates", Choice<Predicates>, Analysis,
        "Track the program's booleans as predicates in BDDs next to the numeric domain (auto: with the -pred domains)",
        predicates),
    option!("pred-domain", Choice<PredDomain>, Analysis,
        "How predicates combine with the numeric domain: one state per valuation, or one BDD times one state",
        pred_domain),
    option!("refine", OnOff, Analysis,
        "Predicate refinement from weakest preconditions along abstract error paths, for what path focusing leaves open",
        refine),
    option!("domain-types", OnOff, Analysis,
        "Path focusing over polyhedra tracks at cut points only the relational packs the open assertions depend on",
        params.domain_types.enabled),
    option!("disequality-splitting", OnOff, Analysis,
        "Abstract acceleration of a self-loop sweeps each side of a disequality a != b that moves by at most 1",
        params.precision.disequality_splitting),
    option!("bitwise-bounds", OnOff, Analysis,
        "Bound x | c and x & c by x and c in the signed reading too, and take x ^ c as c - x for a mask c of low bits",
        params.precision.bitwise_bounds),
    option!("loop-entry-predicates", OnOff, Analysis,
        "Refinement starts with, at each loop head, whether the loop's exit guard held on entry",
        params.precision.loop_entry_predicates),
    option!("relational-congruences", OnOff, Analysis,
        "Affine congruences between live values and template bounds, found by the solver, for assertions left open",
        params.precision.relational_congruences),
    option!("phase-splitting", OnOff, Analysis,
        "Refinement starts with the guards of a loop body's branches read at its head, one state per phase",
        params.precision.phase_splitting),
    option!("partwise-paths", OnOff, Analysis,
        "With predicates, apply a path to each part of a state on its own rather than to their hull",
        params.precision.partwise_paths),
    option!("care-set", OnOff, Analysis,
        "Extrapolation with care sets grown backwards from the open error sites, before refinement",
        params.care_set.enabled),
    option!("call-site-preconditions", OnOff, Analysis,
        "Check the preconditions of functions entered only by their direct calls at those calls, and prove the checks they hold for when every call meets them",
        params.stages.call_site_preconditions),
    option!("requirement-share", Share, Analysis,
        "Share of the run's plan the analyses of the calls that check preconditions plan with",
        params.stages.requirement_share),
    option!("requirement-rounds", Count, Analysis,
        "Rounds of calls that check preconditions: a call meeting one under its caller's own precondition is settled by the next round, at the caller's calls",
        params.stages.requirement_rounds),
    option!("classic-after-focus", OnOff, Analysis,
        "Run the classic engine over the same domain when path focusing stops before a fixpoint",
        params.stages.classic_after_focus),
    option!("focus-share", Share, Analysis,
        "Share of the engine's allowance path focusing may take; when it stops before a fixpoint, the classic engine over the same domain gets the rest",
        params.stages.focus_share),
    option!("relational-preconditions", OnOff, Analysis,
        "Infer preconditions over polyhedra too, after intervals, where the function's analysis ended within its budget",
        params.stages.relational_preconditions),
    option!("recheck-preconditions", OnOff, Analysis,
        "Recheck each inferred precondition by analyzing the function once per disjunct assumed at its entry",
        params.stages.recheck_preconditions),
    option!("interval-pass", OnOff, Analysis,
        "Run the classic engine over intervals on every function first; its proofs are final and seed the engine",
        params.stages.interval_pass),
    option!("interval-work", Steps, Analysis,
        "The interval pass's budget of work per function, in units of eight steps (the same stop on any machine and load)",
        params.stages.interval_work),
    option!("engine-work", Steps, Analysis,
        "The engine's budget of work per function, in steps (0: none, time alone limits it)",
        params.stages.engine_work),
    option!("precondition-work", Steps, Analysis,
        "The budget of work per function of the analyses that infer and certify the preconditions of `holds if` verdicts, in steps (0: none)",
        params.stages.precondition_work),
    option!("focus-work", Steps, Analysis,
        "Path focusing's budget of solver work per run, in the solver's resource units (0: none)",
        params.focus.solver_work),
    option!("focus-query-work", Steps, Analysis,
        "The most solver work of one query of path focusing (0: none)",
        params.focus.query_work),
    option!("focus-queries", Count, Analysis,
        "Solver queries of path focusing per function before it gives up",
        params.focus.max_queries),
    option!("focus-query-time", Seconds, Analysis,
        "The longest solver query of path focusing",
        params.focus.max_query_time),
    option!("loopiter-delay", Count, Analysis,
        "Plain joins on a self-loop of path focusing before widening",
        params.focus.loopiter_delay),
    option!("narrowing-steps", Count, Analysis,
        "Narrowing steps of path focusing, on a self-loop and on the reduced multigraph",
        params.focus.narrowing_steps),
    option!("threshold-constants", Count, Analysis,
        "Constants of the program used as widening thresholds, at most",
        params.focus.max_threshold_constants),
    option!("widening-delay", SmallCount, Analysis,
        "Joins at a loop head of the classic engine before widening",
        params.classic.widening_delay),
    option!("exact-operations", SmallCount, Analysis,
        "Units of exact encoding of shifts, divisions and bitwise operations per region of path focusing",
        params.focus.exact_operations),
    option!("stage-exact-operations", SmallCount, Analysis,
        "Units of exact encoding of shifts, divisions and bitwise operations per region of the congruence stages and template bounds",
        params.stages.stage_exact_operations),
    option!("max-disequalities", Count, Analysis,
        "Disequalities disequality splitting splits on per path, at most",
        params.precision.max_disequalities),
    option!("phase-predicates", Count, Analysis,
        "Phase predicates at one loop head, at most",
        params.precision.max_phase_predicates),
    option!("polyeq-degree", Degree, Analysis,
        "The largest degree of polynomial equalities tried",
        params.polyeq.max_degree),
    option!("polyeq-monomials", Count, Analysis,
        "The largest template of polynomial equalities, in monomials",
        params.polyeq.max_monomials),
    option!("guard-depth", Count, Analysis,
        "How deep guards are decomposed through boolean definitions",
        params.lower.guard_depth),
    option!("refine-rounds", Count, Analysis,
        "Analyses re-run with more predicates, at most",
        params.stages.max_refinement_rounds),
    option!("refine-depth", Count, Analysis,
        "Paths refinement steps back from an error site, at most",
        params.refine.max_depth),
    option!("refine-paths", Count, Analysis,
        "Paths refinement and care sets enumerate per cut point and target",
        params.refine.paths_per_step),
    option!("refine-predicates", Count, Analysis,
        "Predicates kept at one cut point",
        params.refine.max_per_cut_point),
    option!("care-set-rounds", Count, Analysis,
        "Rounds of care-set growth and engine runs per function, at most",
        params.care_set.max_rounds),
    option!("care-set-depth", Count, Analysis,
        "Paths care sets step back from an error site, at most",
        params.care_set.max_depth),
    option!("care-set-extrapolations", Count, Analysis,
        "Care-set steps at one cut point in one run before it widens as usual",
        params.care_set.max_extrapolations),
    option!("certify-query-time", Seconds, Analysis,
        "The longest solver query of the certification of invariants",
        params.certify.query_timeout),
    option!("engine-share", Share, Analysis,
        "Share of a function's budget the engine may use when a counterexample search follows",
        params.stages.engine_share),
    option!("share-reference", Seconds, Analysis,
        "The budget the shares of the stages between the engine and the full search are counted in, at most",
        params.stages.share_reference),
    option!("stage-work", Steps, Analysis,
        "Units of counted work a second of a stage's share is worth (0: wall-clock shares only)",
        params.stages.work_per_second),
    option!("time-net", Rate, Analysis,
        "How many times its share of time a stage counted in work may take before its time stops it",
        params.stages.time_net),
    option!("precondition-share", Share, Analysis,
        "Share of a function's budget the inference of its checks' preconditions may take at least (they take what its analysis left)",
        params.stages.precondition_share),
    option!("bmc-work", Steps, Analysis,
        "Bounded model checking's budget of solver work in one counterexample search",
        params.cex.bmc_work),
    option!("bmc-query-work", Steps, Analysis,
        "The most solver work of one query of bounded model checking",
        params.cex.bmc_query_work),
    option!("bmc-min-depth", Count, Analysis,
        "The least depth limit of bounded model checking, in back edges",
        params.cex.min_bmc_depth),
    option!("bmc-max-depth", Count, Analysis,
        "The greatest depth limit of bounded model checking, in back edges",
        params.cex.max_bmc_depth),
    option!("native-stale-runs", Count, Analysis,
        "Native runs in a row without new behaviour after which the native search stops",
        params.cex.native_stale_runs),
    option!("contract-round-work", Steps, Analysis,
        "The contract search's budget of work per function and round, in steps",
        params.contracts.round_work),
    option!("contract-work", Rate, Analysis,
        "The contract search's budget of work per second of --timeout, in steps",
        params.contracts.search_work_per_second),
    option!("return-summaries", OnOff, Analysis,
        "A call of a function outside recursive cycles assumes what its analysis says it returns",
        params.contracts.return_summaries),
    option!("return-work", Steps, Analysis,
        "The counted work of the analysis of one function for the summary of its returns",
        params.contracts.return_work),
    option!("returns-work", Steps, Analysis,
        "The counted work of all summaries of returns of a program together",
        params.contracts.returns_work),
    option!("inline-limit", Count, FrontEnd,
        "Callees larger than this many instructions are not inlined (in a program over --inline-program-limit, see inline-leaf-limit)",
        inline_limit),
    option!("inline-caller-limit", Count, FrontEnd,
        "A caller grows by inlining to at most this many instructions; a call past it stays a call",
        inline_caller_limit),
    option!("inline-marked", OnOff, FrontEnd,
        "Inline a function the source marks always_inline whatever its size (by default, only within --inline-limit)",
        frontend.inline_marked),
    option!("inline-program-limit", Count, FrontEnd,
        "A program of at most this many instructions is inlined whole (callees within --inline-limit); a larger one inlines leaves only",
        frontend.inline_program_limit),
    option!("inline-leaf-limit", Count, FrontEnd,
        "The largest callee inlined in a program over --inline-program-limit, in instructions",
        frontend.inline_leaf_limit),
    option!("lift-limit", Count, FrontEnd,
        "Functions larger than this many instructions after inlining are not lifted (their checks are unknown)",
        lift_limit),
    option!("memory-model", OnOff, FrontEnd,
        "Lower loads and stores to values; off, every load is arbitrary (what is proved without the model)",
        frontend.memory_model),
    option!("verify-ir", OnOff, FrontEnd,
        "Verify the IR after every pass in a release build too (debug builds always do)",
        frontend.verify_ir),
    option!("timing", OnOff, FrontEnd,
        "Print the time of each stage of the front end and of each program's load and analysis",
        frontend.timing),
    option!("debug-floats", OnOff, FrontEnd,
        "Print the outcome of the bit-precise runs over floats of each function",
        frontend.debug_floats),
    option!("debug-contracts", Choice<ContractTrace>, FrontEnd,
        "Print the contract search's rounds (modules: and the module each round analyzes)",
        frontend.debug_contracts),
    option!("dump-before-pipeline", File, FrontEnd,
        "Write the module before LLVM's optimization pipeline to this bitcode file",
        frontend.dump_before_pipeline),
    option!("debug-focus", OnOff, Diagnostics,
        "Print path focusing's queries, paths and images",
        params.trace.focus),
    option!("debug-counterexamples", OnOff, Diagnostics,
        "Print the counterexample search's steps with the time left",
        params.trace.counterexamples),
    option!("debug-work", OnOff, Diagnostics,
        "Print each stage's time, budget of counted work and the work it counted by kind",
        params.trace.work),
    option!("inject-solver-unknown", Steps, Diagnostics,
        "Every N-th solver check of a function answers unknown without asking (0: none); a test aid",
        params.faults.solver_unknown_every),
    option!("record-polyhedra", File, Diagnostics,
        "Record a sample of the polyhedra operations to this file, for the polyhedra benchmark",
        record_polyhedra),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_has_a_unique_name_and_reads_back_its_default() {
        let mut names: Vec<&str> = OPTIONS.iter().map(|o| o.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), OPTIONS.len(), "option names are unique");
        for o in OPTIONS {
            let shown = (o.get)(&Tuning::DEFAULT);
            if shown == "none" {
                continue;
            }
            let mut t = Tuning::DEFAULT;
            (o.set)(&mut t, &shown).unwrap_or_else(|e| panic!("{}={shown}: {e}", o.name));
            assert_eq!(t, Tuning::DEFAULT, "{}={shown} is the default", o.name);
        }
    }

    #[test]
    fn settings_change_what_they_name_and_the_last_wins() {
        let settings: Vec<Setting> = ["engine=classic", "care-set=off", "care-set", "focus-work=7"]
            .iter()
            .map(|s| parse_setting(s).unwrap())
            .collect();
        let t = Tuning::from_settings(&settings, Scope::Analysis).unwrap();
        assert_eq!(t.engine, Engine::Classic);
        assert!(t.params.care_set.enabled, "the bare switch comes last: on");
        assert_eq!(t.params.focus.solver_work, 7);
        // Nothing else moved.
        let mut back = t.clone();
        back.engine = Engine::Focus;
        back.params.focus.solver_work = Params::DEFAULT.focus.solver_work;
        assert_eq!(back, Tuning::DEFAULT);
    }

    #[test]
    fn unknown_names_and_bad_values_are_errors() {
        assert!(parse_setting("no-such-option=1")
            .unwrap_err()
            .contains("unknown -Z option"));
        assert!(parse_setting("care-sets=on")
            .unwrap_err()
            .contains("care-set"));
        assert!(parse_setting("care-set=maybe").is_err());
        assert!(parse_setting("interval-work=-1").is_err());
        assert!(parse_setting("engine-share=0").is_err());
        assert!(parse_setting("focus-query-time=nan").is_err());
        assert!(
            parse_setting("engine").is_err(),
            "only a switch may omit its value"
        );
        let analysis = [parse_setting("engine=classic").unwrap()];
        assert!(Tuning::from_settings(&analysis, Scope::FrontEnd).is_err());
        let front_end = [parse_setting("lift-limit=10").unwrap()];
        assert_eq!(
            Tuning::from_settings(&front_end, Scope::FrontEnd)
                .unwrap()
                .lift_limit,
            10
        );
    }

    #[test]
    fn the_domain_options_select_the_domains_of_the_old_flags() {
        let kind = |args: &[&str]| {
            let settings: Vec<Setting> = args.iter().map(|s| parse_setting(s).unwrap()).collect();
            Tuning::from_settings(&settings, Scope::Analysis)
                .unwrap()
                .domain_kind()
        };
        assert_eq!(kind(&[]), DomainKind::Poly);
        assert_eq!(kind(&["domain=interval"]), DomainKind::Interval);
        assert_eq!(kind(&["domain=poly-pred"]), DomainKind::PolyPred);
        assert_eq!(
            kind(&["domain=interval", "predicates=on", "pred-domain=product"]),
            DomainKind::IntervalPredProduct
        );
        assert_eq!(
            kind(&["domain=poly-pred", "predicates=off"]),
            DomainKind::Poly
        );
    }

    #[test]
    fn help_lists_every_option_with_its_default() {
        let text = help_text();
        for o in OPTIONS {
            assert!(
                text.contains(&format!("  {}={}", o.name, o.kind)),
                "{}",
                o.name
            );
        }
        assert!(text.contains("interval-work=N"));
        assert!(text.contains(&format!(
            "[default: {}]",
            Params::DEFAULT.stages.interval_work
        )));
    }

    #[test]
    fn help_is_asked_for_in_each_spelling() {
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(asks_for_help(&args(&["check", "-Z", "help"])));
        assert!(asks_for_help(&args(&["check", "-Zhelp"])));
        assert!(!asks_for_help(&args(&[
            "check",
            "-Z",
            "care-set=off",
            "help.c"
        ])));
    }
}
