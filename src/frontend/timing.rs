//! The time the front end's stages take, printed on demand (a measuring aid).

use super::FrontendOptions;

/// Prints the time since `started` at the end of a stage when `options.timing` is on.
pub fn timing(options: &FrontendOptions, stage: &str, started: std::time::Instant) {
    if options.timing {
        eprintln!(
            "polyfocus: front end: {stage} at {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
}
