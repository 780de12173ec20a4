//! How long a Python callable handed to the library lives. One-shot kinds (host functions,
//! stream callbacks) are freed by their trampoline; repeating kinds are kept under a key and
//! released by the call that tells the library to stop calling them.

use super::functions::ParamView;

/// Callback kinds the library may call any number of times.
const REPEATING: [&str; 3] = ["logs", "async_notification", "flow"];

/// Calls after which the library no longer calls a kept callable: function, callback kind, and
/// the parameter holding the key it was kept under.
const RELEASES: [(&str, &str, &str); 3] = [
    ("cuLogsUnregisterCallback", "logs", "callback"),
    ("cuDeviceUnregisterAsyncNotification", "async_notification", "callback"),
    ("nvrtcDestroyProgram", "flow", "prog"),
];

/// For a callback parameter of a repeating kind: the Rust expression (after a successful call)
/// of the key its callable is kept under. That is the registration handle the call returns
/// (`cuLogsRegisterCallback`), else the first handle argument (the program of
/// `nvrtcSetFlowCallback`). Empty for one-shot kinds.
pub fn keep_key(kind: &str, params: &[ParamView]) -> Result<String, String> {
    if !REPEATING.contains(&kind) {
        return Ok(String::new());
    }
    let handle = |want: &str| params.iter().find(|p| p.kind == want && p.scalar.kind == "handle");
    match (handle("out"), handle("handle")) {
        (Some(out), _) => Ok(format!("o{}.u64()", out.index)),
        (None, Some(arg)) => Ok(format!("a{}", arg.index)),
        (None, None) => Err(format!("a {kind} callback with no handle to keep it under")),
    }
}

/// What a release call does: the callback kind, and the Rust expression (evaluated before the
/// call, `Option<u64>`) of the key it releases.
#[derive(serde::Serialize)]
pub struct Release {
    pub kind: &'static str,
    pub key: String,
}

/// The release done by `function`, if it is one. The key is read before the call: a program
/// passed by pointer (`nvrtcDestroyProgram`) is zeroed by it.
pub fn release(function: &str, params: &[ParamView]) -> Result<Option<Release>, String> {
    let Some(&(_, kind, param)) = RELEASES.iter().find(|(f, _, _)| *f == function) else {
        return Ok(None);
    };
    let p = params.iter().find(|p| p.cname == param).ok_or_else(|| format!("no parameter '{param}' to release by"))?;
    let key = match p.kind {
        "handle" => format!("Some(a{})", p.index),
        _ => format!("crate::handles::any_handle({}).map(|(raw, _)| raw)", p.rust),
    };
    Ok(Some(Release { kind, key }))
}
