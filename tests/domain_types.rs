//! Domain types: the classification of values by their use on a small
//! lifted function, and path focusing with domain types on real programs (the relational
//! pack an assertion needs is tracked; the JSON report counts the classes per function).

mod common;

use polyfocus::context::domain_types::{cone_of_influence, DomainType, DomainTypes};
use polyfocus::graph::ReducedGraph;
use polyfocus::ir::{self, BlockId, ValueId};

/// One value of each class: parameters compared with each other (relational), two
/// induction values of one loop (relational: the loop's control relates them), a flag, a
/// state compared with two constants, a value only bounded by constants. Only the loop's
/// pack reaches the assertion.
const CLASSES: &str = "
function classes(v0: i32, v1: i32) entry bb0
  bb0: ; entry
    v2: i32 = havoc (nondet polyfocus_nondet_int)  ; flag
    v3: i32 = havoc (nondet polyfocus_nondet_int)  ; state
    v14: i32 = havoc (nondet polyfocus_nondet_int)  ; bounded
    jump bb1 [v4 := 0:i32, v5 := 0:i32]
  bb1: ; loop
    v7: i1 = icmp slt v4, 10:i32
    branch v7 ? bb2 : bb3
  bb2: ; body
    v8: i32 = add v4, 1:i32  ; i
    v9: i32 = add v5, 2:i32  ; j
    jump bb1 [v4 := v8, v5 := v9]
  bb3: ; exit
    v16: i1 = icmp sle v5, 20:i32
    branch v16 ? bb5 : bb4
  bb4: ; fail
    error check0
  bb5: ; after
    v10: i1 = icmp ne v2, 0:i32
    v11: i1 = icmp eq v3, 5:i32
    v12: i1 = icmp eq v3, 7:i32
    v13: i1 = icmp slt v0, v1
    v15: i32 = add v14, 3:i32
    v17: i1 = icmp sle v15, 100:i32
    v18: i1 = and v10, v11
    v19: i1 = or v12, v13
    v20: i1 = and v18, v19
    v21: i1 = and v20, v17
    branch v21 ? bb6 : bb7
  bb6: ; then
    return
  bb7: ; else
    return
";

fn v(i: u32) -> ValueId {
    ValueId(i)
}

#[test]
fn values_are_classified_by_their_use() {
    let func = ir::parse(CLASSES).expect("parses");
    let graph = ReducedGraph::new(&func);
    let types = DomainTypes::classify(&func, &graph);
    let expect = [
        (0, DomainType::Relational),
        (1, DomainType::Relational),
        (2, DomainType::Boolean),
        (3, DomainType::Equality),
        (4, DomainType::Relational),
        (5, DomainType::Relational),
        (8, DomainType::Relational),
        (9, DomainType::Relational),
        (14, DomainType::Interval),
        (15, DomainType::Interval),
        (7, DomainType::Boolean),
        (21, DomainType::Boolean),
    ];
    for (value, class) in expect {
        assert_eq!(types.class(v(value)), class, "v{value}");
    }
    assert!(types.same_pack(v(4), v(5)), "the loop's induction values");
    assert!(types.same_pack(v(0), v(1)));
    assert!(!types.same_pack(v(0), v(4)), "unrelated packs stay apart");
    let counts = types.counts();
    assert_eq!(counts.relational_packs, 2);
    assert_eq!(counts.largest_pack, 4);
    assert_eq!(
        counts.boolean + counts.equality + counts.interval + counts.relational,
        func.values.len()
    );
}

#[test]
fn only_the_packs_the_assertion_depends_on_are_tracked() {
    let func = ir::parse(CLASSES).expect("parses");
    let graph = ReducedGraph::new(&func);
    let types = DomainTypes::classify(&func, &graph);
    let relevant = cone_of_influence(&func, &[BlockId(4)]);
    // The assertion's condition, and the loop's (its block reaches the error site).
    for value in [16, 5, 9, 7, 4, 8] {
        assert!(
            relevant.contains(&v(value)),
            "v{value} influences the error site"
        );
    }
    // Computed only after the assertion: no influence.
    for value in [0, 1, 2, 3, 10, 13, 14, 21] {
        assert!(
            !relevant.contains(&v(value)),
            "v{value} cannot influence it"
        );
    }
    let tracked = types.tracked(&relevant);
    assert_eq!(
        tracked.into_iter().collect::<Vec<_>>(),
        vec![v(4), v(5), v(8), v(9)]
    );
    // No open assertion: nothing to track.
    assert!(types.tracked(&cone_of_influence(&func, &[])).is_empty());
}

/// `j == 2 * i` needs the loop's two counters in one polyhedron: with domain types on they
/// are a tracked relational pack and the assertion is still proved; the report counts the
/// classes of the function, and with domain types off it has no counts.
#[test]
fn a_relational_pack_keeps_its_proof_and_the_report_counts_the_classes() {
    let program = common::program("relational.c");
    let on = common::check_json(&program, &["-Z", "domain-types=on", "--timeout", "20"]);
    for check in on["checks"].as_array().expect("checks") {
        assert_eq!(check["verdict"], "proved", "{check}");
    }
    let main = on["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .find(|f| f["function"] == "main")
        .expect("main");
    let types = &main["domain_types"];
    let count = |k: &str| {
        types[k]
            .as_u64()
            .unwrap_or_else(|| panic!("{k} in {types}"))
    };
    assert!(count("relational") >= 2, "{types}");
    assert!(count("relational_packs") >= 1, "{types}");
    assert!(count("tracked") >= 2, "{types}");
    assert!(count("tracked") <= count("relational"), "{types}");
    let total = count("boolean") + count("equality") + count("interval") + count("relational");
    assert!(total >= count("relevant"), "{types}");

    let off = common::check_json(&program, &["-Z", "domain-types=off", "--timeout", "20"]);
    for check in off["checks"].as_array().expect("checks") {
        assert_eq!(check["verdict"], "proved", "{check}");
    }
    assert!(off["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .all(|f| f.get("domain_types").is_none()));
}
