//! Tracing: text and JSON lines, file destinations, off switch. Each scenario is a child process.

use cudagen_loader_tests::{
    is_child, run_child,
    trace::{self, Value},
};
use std::path::PathBuf;
use std::time::Duration;

fn tmp(name: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_file(&p);
    p
}

/// Emit 4 threads x 50 calls with every kind of value.
fn emit() {
    let threads: Vec<_> = (0..4)
        .map(|t| {
            std::thread::spawn(move || {
                for i in 0..50u64 {
                    let dptr = 0x7f00_0000_1000u64 + i;
                    trace::record(
                        "cuMemAlloc_v2",
                        &[
                            ("dptr", Value::Hex(dptr)),
                            ("bytesize", Value::Size(67108864)),
                        ],
                        Value::Enum {
                            name: Some("CUDA_SUCCESS"),
                            value: 0,
                        },
                        Duration::from_nanos(1234),
                    );
                    trace::record(
                        "nvrtcCreateProgram",
                        &[
                            ("prog", Value::Ptr(0x5555_0000usize as *const _)),
                            ("src", Value::Str(Some(c"say \"hi\"\n\t\\ \u{1} é"))),
                            ("name", Value::Str(None)),
                            ("numHeaders", Value::I64(-(t as i64))),
                            ("flag", Value::Bool(true)),
                            ("scale", Value::F64(0.5)),
                            ("nan", Value::F64(f64::NAN)),
                            ("u", Value::U64(u64::MAX)),
                            ("null", Value::Ptr(std::ptr::null())),
                        ],
                        Value::Enum {
                            name: None,
                            value: 999,
                        },
                        Duration::from_micros(12),
                    );
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn trace_text_file() {
    let file = tmp("trace.txt");
    if !is_child() {
        run_child(
            "trace_text_file",
            &[
                ("CUDAGEN_TRACE", "1"),
                ("CUDAGEN_TRACE_FILE", file.to_str().unwrap()),
            ],
        );
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 400);
        println!(
            "{}\n{}",
            lines[0],
            lines.iter().find(|l| l.contains("nvrtc")).unwrap()
        );
        let tids: std::collections::BTreeSet<&str> =
            lines.iter().map(|l| l.split(']').next().unwrap()).collect();
        assert_eq!(tids.len(), 4, "{tids:?}");
        for l in &lines {
            assert!(l.starts_with("[cudagen tid="), "{l}");
            if l.contains("cuMemAlloc_v2") {
                assert!(l.ends_with("] cuMemAlloc_v2(dptr=0x7f0000001000, bytesize=67108864) -> CUDA_SUCCESS 1.234us")
                    || l.contains("cuMemAlloc_v2(dptr=0x7f00000010"), "{l}");
                assert!(
                    l.ends_with(", bytesize=67108864) -> CUDA_SUCCESS 1.234us"),
                    "{l}"
                );
            } else {
                assert!(l.contains(r#"nvrtcCreateProgram(prog=0x55550000, src="say \"hi\"\n\t\\ \u{1} é", name=NULL, numHeaders="#), "{l}");
                assert!(l.ends_with(", flag=true, scale=0.5, nan=NaN, u=18446744073709551615, null=NULL) -> 999 12.000us"), "{l}");
            }
        }
        return;
    }
    assert!(trace::active());
    emit();
}

#[test]
fn trace_json_path_in_trace_var() {
    let file = tmp("trace.jsonl");
    if !is_child() {
        run_child(
            "trace_json_path_in_trace_var",
            &[
                ("CUDAGEN_TRACE", file.to_str().unwrap()),
                ("CUDAGEN_TRACE_FORMAT", "json"),
            ],
        );
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text.lines().count(), 400);
        println!("{}", text.lines().nth(1).unwrap());
        for l in text.lines() {
            let v: serde_json::Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            assert!(v["tid"].as_u64().unwrap() > 0);
            if v["fn"] == "cuMemAlloc_v2" {
                assert_eq!(v["args"]["bytesize"], 67108864);
                assert!(v["args"]["dptr"]
                    .as_str()
                    .unwrap()
                    .starts_with("0x7f00000010"));
                assert_eq!(
                    (v["result"].as_str(), v["ns"].as_u64()),
                    (Some("CUDA_SUCCESS"), Some(1234))
                );
            } else {
                let a = &v["args"];
                assert_eq!(a["src"], "say \"hi\"\n\t\\ \u{1} é");
                assert!(a["name"].is_null() && a["null"].is_null());
                assert_eq!(
                    (a["prog"].as_str(), a["flag"].as_bool(), a["scale"].as_f64()),
                    (Some("0x55550000"), Some(true), Some(0.5))
                );
                assert_eq!(
                    (a["nan"].as_str(), a["u"].as_u64()),
                    (Some("NaN"), Some(u64::MAX))
                );
                assert_eq!(
                    (v["result"].as_i64(), v["ns"].as_u64()),
                    (Some(999), Some(12000))
                );
            }
        }
        return;
    }
    assert!(trace::active());
    emit();
}

#[test]
fn trace_off_and_stderr() {
    if !is_child() {
        // Off: nothing is written anywhere.
        let out = run_child(
            "trace_off_and_stderr",
            &[("CUDAGEN_TRACE", "off"), ("CHECK", "off")],
        );
        assert!(!out.contains("[cudagen"), "{out}");
        // On without a file: stderr.
        let out = run_child(
            "trace_off_and_stderr",
            &[("CUDAGEN_TRACE", "TRUE"), ("CHECK", "on")],
        );
        assert!(
            out.contains("] cuInit(Flags=0) -> CUDA_SUCCESS 0.005us"),
            "{out}"
        );
        // Unwritable file: warning, then stderr.
        let out = run_child(
            "trace_off_and_stderr",
            &[
                ("CUDAGEN_TRACE_FILE", "/nonexistent/dir/t"),
                ("CHECK", "on"),
            ],
        );
        assert!(
            out.contains("[cudagen] cannot open trace file /nonexistent/dir/t")
                && out.contains("] cuInit(Flags=0)"),
            "{out}"
        );
        // Turned on at run time.
        let out = run_child("trace_off_and_stderr", &[("CHECK", "runtime")]);
        assert!(out.contains("] cuInit(Flags=0)"), "{out}");
        return;
    }
    let check = std::env::var("CHECK").unwrap();
    assert_eq!(trace::active(), check == "on");
    if check == "runtime" {
        trace::set_active(true);
        assert!(trace::active());
    }
    trace::record(
        "cuInit",
        &[("Flags", Value::U64(0))],
        Value::Enum {
            name: Some("CUDA_SUCCESS"),
            value: 0,
        },
        Duration::from_nanos(5),
    );
}

#[test]
fn trace_perfetto_summary_and_filter() {
    let file = tmp("trace.perfetto.json");
    if !is_child() {
        let out = run_child(
            "trace_perfetto_summary_and_filter",
            &[
                ("CUDAGEN_TRACE_FILE", file.to_str().unwrap()),
                ("CUDAGEN_TRACE_FORMAT", "perfetto"),
                ("CUDAGEN_TRACE_SUMMARY", "1"),
                ("CUDAGEN_TRACE_ONLY", "cuMem*"),
            ],
        );
        // One JSON document: the filtered calls as complete slices, then the process name.
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let slices: Vec<&serde_json::Value> = v.as_array().unwrap().iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(slices.len(), 200);
        let e = slices[0];
        assert_eq!((e["name"].as_str(), e["args"]["result"].as_str(), e["args"]["bytesize"].as_u64()), (Some("cuMemAlloc_v2"), Some("CUDA_SUCCESS"), Some(67108864)));
        assert!((e["dur"].as_f64().unwrap() - 1.234).abs() < 1e-9 && e["tid"].as_u64().unwrap() > 0);
        // The exit summary counts what the filter kept.
        let line = out.lines().find(|l| l.ends_with("  cuMemAlloc_v2")).unwrap_or_else(|| panic!("{out}"));
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert_eq!((cols[2], cols[3]), ("200", "0"), "{line}");
        assert!(out.contains("API summary") && !out.contains("nvrtcCreateProgram"), "{out}");
        return;
    }
    emit();
}

#[test]
fn trace_errors_only() {
    let file = tmp("trace.errors.txt");
    if !is_child() {
        run_child("trace_errors_only", &[("CUDAGEN_TRACE_FILE", file.to_str().unwrap()), ("CUDAGEN_TRACE_ERRORS", "1")]);
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text.lines().count(), 200);
        assert!(text.lines().all(|l| l.contains("nvrtcCreateProgram(") && l.contains("-> 999 ")), "{text}");
        return;
    }
    emit();
}

/// Buffered lines reach the file when the process aborts.
#[test]
fn trace_written_on_abort() {
    let file = tmp("trace.abort.txt");
    if !is_child() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["trace_written_on_abort", "--exact", "--nocapture", "--test-threads=1"])
            .env("CUDAGEN_TEST_CHILD", "1")
            .env_remove("CUDAGEN_TRACE")
            .env("CUDAGEN_TRACE_FILE", &file)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text.lines().count(), 400, "{text}");
        return;
    }
    emit();
    std::process::abort();
}
