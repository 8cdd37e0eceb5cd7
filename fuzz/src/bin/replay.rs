//! A libFuzzer-free driver for the same harness (runs on stable Rust):
//!
//!   replay <N> [seed]      run N pseudo-random byte programs
//!   replay <file>...       run the given inputs (e.g. libFuzzer crash files)
//!
//! A panic (an invariant violation or a panic inside the engine, which would
//! be a wasm trap) aborts with the failing input written to
//! `replay-crash.bin` and its program printed.
use std::panic;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let first = args.first().map(String::as_str).unwrap_or("2000");
    if let Ok(n) = first.parse::<u64>() {
        let seed = args.get(1).and_then(|s| s.parse::<u64>().ok()).unwrap_or(1);
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            // xorshift64*
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_F491_4F6C_DD1D)
        };
        for i in 0..n {
            let len = (next() % 256) as usize + 8;
            let data: Vec<u8> = (0..len).map(|_| (next() >> 32) as u8).collect();
            run_one(&data, &format!("program {i} (seed {seed})"));
        }
        println!("replay: {n} programs from seed {seed}, no panic");
    } else {
        for path in &args {
            let data = std::fs::read(path).unwrap_or_else(|e| {
                eprintln!("{path}: {e}");
                std::process::exit(2)
            });
            run_one(&data, path);
        }
        println!("replay: {} inputs, no panic", args.len());
    }
}

fn run_one(data: &[u8], what: &str) {
    let r = panic::catch_unwind(|| hookgrad_fuzz::run(data));
    if r.is_err() {
        let _ = std::fs::write("replay-crash.bin", data);
        eprintln!("PANIC on {what}; input saved to replay-crash.bin; program:");
        eprintln!("{}", hookgrad_fuzz::describe(data));
        std::process::exit(1);
    }
}
