//! The differential test of THE note filter (`weft_props::filter`) over a
//! few thousand random vaults and filters: the vault index's evaluation,
//! the full text's compilation and the query language select the same
//! notes. The fuzz target `filter` explores further.

#[test]
fn one_filter_answers_alike_everywhere() {
    let cases: usize = std::env::var("WEFT_FILTER_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3_000);
    let seed = fastrand::u64(..);
    let mut rng = fastrand::Rng::with_seed(seed);
    for case in 0..cases {
        let len = rng.usize(16..400);
        let data: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
        if let Err(panic) = std::panic::catch_unwind(|| weft_props::filter(&data)) {
            panic!(
                "case {case} (seed {seed}) breaks the property: {}\ninput: {data:?}",
                weft_wire::panic_text(&*panic)
            );
        }
    }
}
