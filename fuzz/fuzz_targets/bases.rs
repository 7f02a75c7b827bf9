#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| weft_props::bases(data));
