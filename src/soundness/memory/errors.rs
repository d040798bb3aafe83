//! One memory error on purpose, for [`super::generate_with_errors`]: a read or a write one
//! past the end of an object or one before its start, an index that reaches the end for
//! some inputs, a use after `free`, a double `free`, or a dereference of a pointer that is
//! `NULL` for some inputs. Most are guarded by a condition on an input that some
//! valuations meet; some by one that none meets (the error is then never reached, and a
//! proof of its check is right).
//!
//! The erroneous access is alone on its line (its guard is on the line before), so that
//! the line the address sanitizer reports is the line of that access and of no other
//! check. Only whole objects are overrun (never a struct's field or a matrix's row, whose
//! neighbours the address sanitizer does not guard), and never before a global's start
//! (globals are guarded after their end only).

use super::{Array, Gen, Storage};

impl Gen {
    pub(super) fn memory_error(&mut self) {
        let sink = self.fresh("sink");
        self.top(format!("volatile long long {sink};"));
        let whole: Vec<Array> = self
            .arrays
            .iter()
            .filter(|a| a.storage != Storage::Part)
            .cloned()
            .collect();
        // A heap buffer named by a variable of its own (freed below).
        let freeable: Vec<Array> = whole
            .iter()
            .filter(|a| a.storage == Storage::Heap && !a.name.contains('['))
            .cloned()
            .collect();
        let Some(a) = (!whole.is_empty()).then(|| self.rng.pick(&whole).clone()) else {
            return;
        };
        let guard = self.guard();
        let (ty, name, len) = (a.ty, a.name.clone(), a.len);
        match self.rng.below(7) {
            0 => {
                self.classes.push("error-read-past-end");
                self.guarded(&guard, format!("{sink} = (long long){name}[{len}];"));
            }
            1 => {
                self.classes.push("error-write-past-end");
                let v = self.literal(ty);
                self.guarded(&guard, format!("{name}[{len}] = {v};"));
            }
            2 if a.storage != Storage::Global => {
                self.classes.push("error-before-start");
                self.guarded(&guard, format!("{sink} = (long long)*({name} - 1);"));
            }
            3 if !self.inputs.is_empty() => {
                self.classes.push("error-index-reaches-end");
                let input = self.rng.pick(&self.inputs).name.clone();
                self.line(format!(
                    "  {sink} = (long long){name}[(unsigned)({input}) % {}U];",
                    len + 1
                ));
            }
            4 | 5 if !freeable.is_empty() => {
                let h = self.rng.pick(&freeable).clone();
                self.arrays.retain(|b| b.name != h.name);
                self.heap.retain(|b| *b != h.name);
                self.line(format!("  free({});", h.name));
                if self.rng.chance(50) {
                    self.classes.push("error-use-after-free");
                    let k = self.rng.below(h.len);
                    self.guarded(&guard, format!("{sink} = (long long){}[{k}];", h.name));
                } else {
                    self.classes.push("error-double-free");
                    self.guarded(&guard, format!("free({});", h.name));
                }
            }
            _ => {
                self.classes.push("error-null-dereference");
                let np = self.fresh("np");
                self.line(format!("  {ty} *{np} = ({guard}) ? ({ty} *)0 : {name};"));
                self.line(format!("  {sink} = (long long)*{np};"));
            }
        }
    }

    /// `access` on a line of its own, under `guard`.
    fn guarded(&mut self, guard: &str, access: String) {
        self.line(format!("  if ({guard}) {{"));
        self.line(format!("    {access}"));
        self.line("  }".into());
    }

    /// A condition on an input that some valuations meet, or (sometimes) none does.
    fn guard(&mut self) -> String {
        let Some(input) = (!self.inputs.is_empty()).then(|| self.rng.pick(&self.inputs).clone())
        else {
            self.classes.push("error-on-every-run");
            return "1".to_string();
        };
        let name = &input.name;
        if self.rng.chance(20) {
            self.classes.push("error-never-reached");
            return format!("{name} > {}", input.hi);
        }
        let v = self.rng.range(input.lo, input.hi);
        match self.rng.below(3) {
            0 => format!("{name} == {v}"),
            1 => format!("{name} >= {v}"),
            _ => format!("{name} != {v}"),
        }
    }
}
