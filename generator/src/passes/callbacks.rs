//! Callbacks: which trampoline lets a callable stand for each C callback parameter, which
//! user-data parameter carries it, what a repeating callable is kept under, and which call
//! releases it. The two name tables below are the only place these are decided; every entry is
//! checked against the headers.

use crate::diag::{Error, Result};
use crate::ir::{CallbackKind, CallbackUse, Library, Release, Resolved, Role, Type, TypedefKind};

/// Trampolines by callback typedef.
const BY_TYPEDEF: [(&str, CallbackKind); 5] = [
    ("CUstreamCallback", CallbackKind::Stream),
    ("CUhostFn", CallbackKind::Host),
    ("CUlogsCallback", CallbackKind::Logs),
    ("CUasyncCallback", CallbackKind::AsyncNotification),
    ("CUoccupancyB2DSize", CallbackKind::Occupancy),
];

/// Trampolines by function, for callbacks declared without a typedef.
const BY_FUNCTION: [(&str, CallbackKind); 1] = [("nvrtcSetFlowCallback", CallbackKind::Flow)];

/// Calls after which the library no longer calls a kept callable: function, callback kind, and
/// the parameter holding the key it was kept under.
const RELEASES: [(&str, CallbackKind, &str); 3] = [
    ("cuLogsUnregisterCallback", CallbackKind::Logs, "callback"),
    ("cuDeviceUnregisterAsyncNotification", CallbackKind::AsyncNotification, "callback"),
    ("nvrtcDestroyProgram", CallbackKind::Flow, "prog"),
];

pub fn run(lib: &mut Library) -> Result<()> {
    check_tables(lib)?;
    let mut uses = Vec::new();
    for f in &lib.functions {
        let user_data = f.params.iter().find(|p| matches!(p.role, Role::UserData)).map(|p| p.name.clone());
        // The registration handle the call returns, else the first handle argument.
        let handle = |role: fn(&Role) -> bool, ty: fn(&Type) -> Option<&Type>| {
            f.params.iter().find(|p| role(&p.role) && ty(&p.ty).is_some_and(|t| is_handle(lib, t))).map(|p| p.name.clone())
        };
        let kept_by = handle(|r| matches!(r, Role::OutValue), |t| t.pointee().map(|(t, _)| t))
            .or_else(|| handle(|r| matches!(r, Role::Value | Role::Length { .. }), |t| Some(t)));
        let per_param: Vec<Option<CallbackUse>> = f
            .params
            .iter()
            .map(|p| {
                matches!(p.role, Role::Callback).then(|| {
                    let mut kind = kind_of(&f.name, &p.ty);
                    let wants_user_data = !matches!(kind, CallbackKind::Raw | CallbackKind::Occupancy);
                    if wants_user_data && user_data.is_none() {
                        kind = CallbackKind::Raw;
                    }
                    CallbackUse {
                        kind,
                        user_data: if kind == CallbackKind::Raw || !wants_user_data { None } else { user_data.clone() },
                        kept_by: if kind.repeating() { kept_by.clone() } else { None },
                    }
                })
            })
            .collect();
        let releases =
            RELEASES.iter().find(|(n, _, _)| *n == f.name).map(|&(_, callback, key)| Release { callback, key: key.into() });
        uses.push((per_param, releases));
    }
    for (f, (per_param, releases)) in lib.functions.iter_mut().zip(uses) {
        for (p, u) in f.params.iter_mut().zip(per_param) {
            p.callback = u;
        }
        f.releases = releases;
    }
    Ok(())
}

fn kind_of(function: &str, ty: &Type) -> CallbackKind {
    let by_name = match ty {
        Type::Named { name } => BY_TYPEDEF.iter().find(|(n, _)| n == name).map(|&(_, k)| k),
        _ => BY_FUNCTION.iter().find(|(n, _)| *n == function).map(|&(_, k)| k),
    };
    by_name.unwrap_or(CallbackKind::Raw)
}

fn is_handle(lib: &Library, ty: &Type) -> bool {
    matches!(lib.resolve(ty), Resolved::OpaqueHandle(_) | Resolved::ScalarHandle(..))
}

/// Every table entry names what this library has (or nothing of it: another library or version).
fn check_tables(lib: &Library) -> Result<()> {
    for (name, _) in BY_TYPEDEF {
        if let Some(t) = lib.typedef(name) {
            if !matches!(t.kind, TypedefKind::Callback { .. }) {
                return Err(Error::new(format!("passes::callbacks: {name} is not a callback typedef")));
            }
        }
    }
    for (name, _) in BY_FUNCTION {
        if let Some(f) = lib.function(name) {
            if !f.params.iter().any(|p| matches!(p.role, Role::Callback)) {
                return Err(Error::new(format!("passes::callbacks: {name} takes no callback")));
            }
        }
    }
    for (name, kind, key) in RELEASES {
        if let Some(f) = lib.function(name) {
            if f.param(key).is_none() {
                return Err(Error::new(format!(
                    "passes::callbacks: {name} has no parameter '{key}' to release a {kind:?} callable by"
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Prim, Type, TypedefKind};
    use crate::passes::build::{function, library, param, typedef};

    fn void_ptr() -> Type {
        Type::ptr(Type::prim(Prim::Void), false)
    }

    fn logs() -> Library {
        library(
            "CUlogsCallback",
            vec![
                function(
                    "cuLogsRegisterCallback",
                    vec![
                        param("callbackFunc", Type::named("CUlogsCallback"), Role::Callback),
                        param("userData", void_ptr(), Role::UserData),
                        param("callback_out", Type::ptr(Type::named("H"), false), Role::OutValue),
                    ],
                ),
                function("cuLogsUnregisterCallback", vec![param("callback", Type::named("H"), Role::Value)]),
            ],
        )
    }

    #[test]
    fn repeating_callables_are_kept_by_the_returned_handle_and_released() {
        let mut lib = logs();
        run(&mut lib).unwrap();
        let reg = &lib.functions[0];
        let u = reg.params[0].callback.as_ref().unwrap();
        assert_eq!(
            (u.kind, u.user_data.as_deref(), u.kept_by.as_deref()),
            (CallbackKind::Logs, Some("userData"), Some("callback_out"))
        );
        assert_eq!(reg.releases, None);
        let release = lib.functions[1].releases.as_ref().unwrap();
        assert_eq!((release.callback, release.key.as_str()), (CallbackKind::Logs, "callback"));
    }

    #[test]
    fn a_trampoline_without_user_data_is_raw_and_one_shot_kinds_are_not_kept() {
        let mut lib = library(
            "CUhostFn",
            vec![
                function("cuNoData", vec![param("fn", Type::named("CUhostFn"), Role::Callback)]),
                function(
                    "cuHost",
                    vec![param("fn", Type::named("CUhostFn"), Role::Callback), param("userData", void_ptr(), Role::UserData)],
                ),
            ],
        );
        run(&mut lib).unwrap();
        assert_eq!(lib.functions[0].params[0].callback.as_ref().unwrap().kind, CallbackKind::Raw);
        let u = lib.functions[1].params[0].callback.as_ref().unwrap();
        assert_eq!((u.kind, u.kept_by.as_deref()), (CallbackKind::Host, None));
    }

    #[test]
    fn table_entries_are_checked_against_the_headers() {
        let mut lib = logs();
        lib.functions[1].params[0].name = "handle".into();
        let e = run(&mut lib).unwrap_err().to_string();
        assert!(e.contains("cuLogsUnregisterCallback has no parameter 'callback'"), "{e}");
        let mut lib = library("X", vec![]);
        lib.typedefs.push(typedef("CUhostFn", Type::prim(Prim::Int), TypedefKind::Alias));
        assert!(run(&mut lib).unwrap_err().to_string().contains("CUhostFn is not a callback typedef"));
    }
}
