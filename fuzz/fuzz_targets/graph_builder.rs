//! libFuzzer entry: every byte string is a program over hookgrad's core.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    hookgrad_fuzz::run(data);
});
