//! The `polyfocus` command line: parses arguments, runs, and maps the outcome to an exit code.

fn main() {
    polyfocus::interrupt::install();
    let code = polyfocus::cli::run();
    polyfocus::interrupt::clean_up_at_exit();
    std::process::exit(code);
}
