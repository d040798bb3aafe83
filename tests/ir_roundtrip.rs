//! The IR text round-trips: for every function lifted from the C
//! programs under `tests/programs`, the exact form (`{:#}`) parses back to the same
//! function and prints the same text, and the readable form (`{}`, `polyfocus ir`) prints
//! the same text once parsed. Needs clang-19 (lifting), not the binary.

mod common;

use std::path::PathBuf;

use polyfocus::frontend::{self, DataModel, EntrySelection, FrontendConfig};
use polyfocus::ir;

#[test]
fn every_lifted_function_round_trips() {
    let dir: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "programs"]
        .iter()
        .collect();
    let programs = common::c_programs(&dir);
    let mut n_functions = 0;
    for path in &programs {
        let config = FrontendConfig {
            inputs: vec![path.clone()],
            cflags: vec![],
            data_model: DataModel::Lp64,
            entry: EntrySelection::Default,
            inline_limit: polyfocus::frontend::INLINE_LIMIT,
            inline_caller_limit: polyfocus::frontend::INLINE_CALLER_LIMIT,
            lift_limit: polyfocus::frontend::LIFT_LIMIT,
            checks: polyfocus::ir::CheckSelection::ASSERT,
            options: polyfocus::frontend::FrontendOptions::DEFAULT,
        };
        // Programs written to be rejected (and those needing a second unit) are skipped;
        // the count below makes sure most are not.
        let Ok(module) = frontend::load(&config) else {
            continue;
        };
        for func in &module.functions {
            let exact = format!("{func:#}");
            let parsed =
                ir::parse(&exact).unwrap_or_else(|e| panic!("{}: {e}\n{exact}", path.display()));
            assert_eq!(
                &parsed,
                func,
                "{}: exact form parsed differently",
                path.display()
            );
            assert_eq!(format!("{parsed:#}"), exact, "{}", path.display());

            let readable = format!("{func}");
            let parsed = ir::parse(&readable)
                .unwrap_or_else(|e| panic!("{}: {e}\n{readable}", path.display()));
            assert_eq!(format!("{parsed}"), readable, "{}", path.display());
            assert!(
                ir::verify(&parsed).is_empty(),
                "{}: {readable}",
                path.display()
            );
            n_functions += 1;
        }
    }
    eprintln!(
        "{n_functions} functions from {} programs round-trip",
        programs.len()
    );
    assert!(
        n_functions >= 20,
        "only {n_functions} functions lifted from {} programs",
        programs.len()
    );
}
