//! The time the front end's stages take, printed on demand (a measuring aid).

/// Prints the time since `started` at the end of a stage with `POLYFOCUS_TIMING`.
pub fn timing(stage: &str, started: std::time::Instant) {
    if std::env::var_os("POLYFOCUS_TIMING").is_some() {
        eprintln!(
            "polyfocus: front end: {stage} at {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
}
