//! Turns probes into assertions from what the oracle observed: most assertions hold in
//! every execution (bounds, equalities, a value never taken), some fail in some execution
//! (a bound one short, a value that is taken), so that both `proved` and `violated` have a
//! chance and both can be wrong.

use super::oracle::Observation;
use super::render::Conditions;
use super::rng::Rng;
use super::{CType, Line, Skeleton};

/// Percentage of probes that get an assertion meant to fail.
const FAILING_PERCENT: u32 = 20;

/// A condition for every probe of `skeleton`.
pub fn choose(skeleton: &Skeleton, observed: &Observation, rng: &mut Rng) -> Conditions {
    let mut conditions = Conditions::new();
    for line in &skeleton.lines {
        let Line::Probe { id, expr, ty } = line else {
            continue;
        };
        let values: Vec<i128> = observed
            .probes
            .get(id)
            .map(|bits| bits.iter().map(|b| ty.value_of_bits(*b)).collect())
            .unwrap_or_default();
        conditions.insert(*id, condition(expr, *ty, &values, rng));
    }
    conditions
}

fn condition(expr: &str, ty: CType, values: &[i128], rng: &mut Rng) -> String {
    let x = format!("({expr})");
    let lit = |v: i128| ty.literal(v);
    let (Some(&lo), Some(&hi)) = (values.iter().min(), values.iter().max()) else {
        // Never reached: any condition holds; a false one tests unreachability.
        return if rng.chance(50) {
            "0".to_string()
        } else {
            format!("{x} == {}", lit(ty.highest()))
        };
    };
    let taken = |v: i128| values.contains(&v);
    if rng.chance(FAILING_PERCENT) {
        return match rng.below(4) {
            0 => format!("{x} != {}", lit(*rng.pick(values))),
            1 if lo < hi => format!("{x} < {}", lit(hi)),
            2 if lo < hi => format!("{} < {x}", lit(lo)),
            _ => format!("{x} != {}", lit(lo)),
        };
    }
    match rng.below(6) {
        0 if lo == hi => format!("{x} == {}", lit(lo)),
        0 | 1 => format!("{} <= {x} && {x} <= {}", lit(lo), lit(hi)),
        2 => format!("{x} <= {}", lit(hi)),
        3 => format!("{} <= {x}", lit(lo)),
        4 => {
            // A value never taken, next to the observed ones when there is one.
            let candidates = [hi + 1, lo - 1, (lo + hi) / 2 + 1];
            match candidates
                .iter()
                .find(|v| ty.lowest() <= **v && **v <= ty.highest() && !taken(**v))
            {
                Some(v) => format!("{x} != {}", lit(*v)),
                None => format!("{x} >= {}", lit(lo)),
            }
        }
        _ => format!("{x} > {} || {x} == {}", lit(lo), lit(lo)),
    }
}
