//! The external-judge protocol: a judgment that parses serializes and parses back to itself.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(j) = serde_json::from_slice::<judge_ci::judgment::Judgment>(data) {
        let text = serde_json::to_string(&j).expect("a judgment serializes");
        let back: judge_ci::judgment::Judgment =
            serde_json::from_str(&text).expect("a serialized judgment parses");
        assert_eq!(j, back);
    }
});
