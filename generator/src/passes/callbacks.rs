//! Callbacks: which trampoline lets a callable stand for each C callback parameter, which
//! user-data parameter carries it, what a repeating callable is kept under, and which call
//! releases it. The annotations' `[callbacks]` tables name the trampolines and release calls;
//! every entry is checked against the headers.

use crate::annotations::{CallbackAnnotations, LibraryAnnotations};
use crate::diag::{Error, Errors, Result};
use crate::ir::{CallbackKind, CallbackUse, Function, Library, Release, Resolved, Role, Type, TypedefKind};

pub fn run(lib: &mut Library, ann: &LibraryAnnotations, cuda_version: Option<u32>) -> Result<()> {
    check_tables(lib, ann, cuda_version)?;
    let table = &ann.callbacks;
    let uses: Vec<_> = lib.functions.iter().map(|f| (uses_of(lib, table, f), release_of(table, f))).collect();
    for (f, (per_param, releases)) in lib.functions.iter_mut().zip(uses) {
        for (p, u) in f.params.iter_mut().zip(per_param) {
            p.callback = u;
        }
        f.releases = releases;
    }
    Ok(())
}

/// How a callable stands for each parameter of `f` (`None` for a parameter that is no callback).
fn uses_of(lib: &Library, table: &CallbackAnnotations, f: &Function) -> Vec<Option<CallbackUse>> {
    let user_data = f.params.iter().find(|p| matches!(p.role, Role::UserData)).map(|p| p.name.clone());
    // The registration handle the call returns, else the first handle argument.
    let handle = |role: fn(&Role) -> bool, ty: fn(&Type) -> Option<&Type>| {
        f.params.iter().find(|p| role(&p.role) && ty(&p.ty).is_some_and(|t| is_handle(lib, t))).map(|p| p.name.clone())
    };
    let kept_by = handle(|r| matches!(r, Role::OutValue), |t| t.pointee().map(|(t, _)| t))
        .or_else(|| handle(|r| matches!(r, Role::Value | Role::Length { .. }), |t| Some(t)));
    f.params
        .iter()
        .map(|p| {
            matches!(p.role, Role::Callback).then(|| {
                let mut kind = kind_of(table, &f.name, &p.ty);
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
        .collect()
}

fn release_of(table: &CallbackAnnotations, f: &Function) -> Option<Release> {
    table.releases.get(&f.name).map(|r| Release { callback: r.callback, key: r.key.clone() })
}

fn kind_of(table: &CallbackAnnotations, function: &str, ty: &Type) -> CallbackKind {
    let by_name = match ty {
        Type::Named { name } => table.typedefs.get(name),
        _ => table.functions.get(function),
    };
    by_name.copied().unwrap_or(CallbackKind::Raw)
}

fn is_handle(lib: &Library, ty: &Type) -> bool {
    matches!(lib.resolve(ty), Resolved::OpaqueHandle(_) | Resolved::ScalarHandle(..))
}

/// Every `[callbacks]` entry names what the header declares (or what its `[since]`/`[until]`
/// range says this header lacks), of the right kind.
fn check_tables(lib: &Library, ann: &LibraryAnnotations, cuda_version: Option<u32>) -> Result<()> {
    let mut errors = Errors::default();
    let table = &ann.callbacks;
    let mut check = |section: &str, name: &str, problem: Option<String>| {
        if let Some(p) = problem {
            errors
                .push(Error::at(ann.range_location(&format!("callbacks.{section}"), name), format!("[callbacks.{section}] {p}")));
        }
    };
    let absent = |name: &str, what: &str| {
        (!ann.may_be_absent(name, cuda_version)).then(|| format!("names {what} `{name}`, which the header does not declare"))
    };
    for name in table.typedefs.keys() {
        let problem = match lib.typedef(name) {
            None => absent(name, "typedef"),
            Some(t) if !matches!(t.kind, TypedefKind::Callback { .. }) => Some(format!("`{name}` is not a callback typedef")),
            Some(_) => None,
        };
        check("typedefs", name, problem);
    }
    for name in table.functions.keys() {
        let problem = match lib.function(name) {
            None => absent(name, "function"),
            Some(f) if !f.params.iter().any(|p| matches!(p.role, Role::Callback)) => Some(format!("`{name}` takes no callback")),
            Some(_) => None,
        };
        check("functions", name, problem);
    }
    for (name, r) in &table.releases {
        let problem = match lib.function(name) {
            None => absent(name, "function"),
            Some(_) if !r.callback.repeating() => Some(format!("{name}: a {:?} callable is never kept", r.callback)),
            Some(f) if f.param(&r.key).is_none() => {
                Some(format!("`{name}` has no parameter '{}' to release a {:?} callable by", r.key, r.callback))
            }
            Some(_) => None,
        };
        check("releases", name, problem);
    }
    errors.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Prim, Type, TypedefKind};
    use crate::passes::build::{function, library, param, typedef};

    const TABLES: &str = "[callbacks.typedefs]\nCUhostFn = \"host\"\nCUlogsCallback = \"logs\"\n\
                          [callbacks.releases]\ncuLogsUnregisterCallback = { callback = \"logs\", key = \"callback\" }\n";

    fn tables(text: &str) -> LibraryAnnotations {
        LibraryAnnotations::parse("a.toml", text).unwrap()
    }

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
        let ann = tables("[callbacks.typedefs]\nCUlogsCallback = \"logs\"\n[callbacks.releases]\ncuLogsUnregisterCallback = { callback = \"logs\", key = \"callback\" }\n");
        run(&mut lib, &ann, None).unwrap();
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
        run(&mut lib, &tables("[callbacks.typedefs]\nCUhostFn = \"host\"\n"), None).unwrap();
        assert_eq!(lib.functions[0].params[0].callback.as_ref().unwrap().kind, CallbackKind::Raw);
        let u = lib.functions[1].params[0].callback.as_ref().unwrap();
        assert_eq!((u.kind, u.kept_by.as_deref()), (CallbackKind::Host, None));
    }

    #[test]
    fn table_entries_are_checked_against_the_headers() {
        let ann = tables(TABLES);
        let mut lib = logs();
        lib.functions[1].params[0].name = "handle".into();
        let e = run(&mut lib, &ann, None).unwrap_err().to_string();
        assert!(e.contains("`cuLogsUnregisterCallback` has no parameter 'callback'"), "{e}");
        assert!(e.contains("a.toml:5: [callbacks.releases]"), "{e}");
        assert!(e.contains("names typedef `CUhostFn`, which the header does not declare"), "{e}");
        let mut lib = library("CUlogsCallback", vec![]);
        lib.typedefs.push(typedef("CUhostFn", Type::prim(Prim::Int), TypedefKind::Alias));
        let e = run(&mut lib, &ann, None).unwrap_err().to_string();
        assert!(e.contains("`CUhostFn` is not a callback typedef"), "{e}");
        assert!(e.contains("names function `cuLogsUnregisterCallback`"), "{e}");
        let bad_kind = tables("[callbacks.releases]\ncuLogsUnregisterCallback = { callback = \"host\", key = \"callback\" }\n");
        assert!(run(&mut logs(), &bad_kind, None).unwrap_err().to_string().contains("a Host callable is never kept"));
    }

    #[test]
    fn a_range_excuses_an_absent_entry() {
        let ann = tables(&format!("{TABLES}[since]\nCUhostFn = \"12.4\"\n"));
        assert!(run(&mut logs(), &ann, Some(12000)).is_ok());
        assert!(run(&mut logs(), &ann, Some(12040)).unwrap_err().to_string().contains("`CUhostFn`"));
    }
}
