//! Handle identity across libraries: a handle typedef whose pointee record another library's
//! handle typedef names too (`cudaStream_t` and `CUstream` both point to `struct CUstream_st`)
//! is that library's type on every surface ([`SharedHandle`]). Runs over the whole API after the
//! per-library passes; the library earlier in profile order (the driver) owns the type.

use crate::ir::{Api, Library, SharedHandle, TypedefKind};

pub fn run(api: &mut Api) {
    for i in 1..api.libraries.len() {
        let (owners, rest) = api.libraries.split_at_mut(i);
        let lib = &mut rest[0];
        lib.shared_handles = shared(owners, lib);
    }
}

fn shared(owners: &[Library], lib: &Library) -> Vec<SharedHandle> {
    let mut out = Vec::new();
    for t in &lib.typedefs {
        let TypedefKind::OpaqueHandle { record } = &t.kind else { continue };
        let owner = owners.iter().find_map(|o| owner_typedef(o, record).map(|name| (o.kind, name)));
        if let Some((library, target)) = owner {
            out.push(SharedHandle { name: t.name.clone(), library, target });
        }
    }
    out
}

/// `o`'s own handle typedef of `record` (the first that is not itself another library's).
fn owner_typedef(o: &Library, record: &str) -> Option<String> {
    o.typedefs
        .iter()
        .filter(|t| matches!(&t.kind, TypedefKind::OpaqueHandle { record: r } if r == record))
        .find(|t| o.shared_handle(&t.name).is_none())
        .map(|t| t.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Type;
    use crate::passes::build::typedef;

    fn handle(name: &str, record: &str) -> crate::ir::Typedef {
        typedef(
            name,
            Type::Pointer { pointee: Box::new(Type::named(record)), is_const: false },
            TypedefKind::OpaqueHandle { record: record.into() },
        )
    }

    #[test]
    fn a_handle_of_the_drivers_record_is_the_drivers_type() {
        let mut driver = Library::new(crate::profile::kind("driver"));
        driver.typedefs.push(handle("CUstream", "CUstream_st"));
        let mut runtime = Library::new(crate::profile::kind("runtime"));
        runtime.typedefs.push(handle("cudaStream_t", "CUstream_st"));
        runtime.typedefs.push(handle("cudaArray_t", "cudaArray"));
        let mut api = Api { cuda_version: "12.9".into(), libraries: vec![driver, runtime] };
        run(&mut api);
        assert!(api.libraries[0].shared_handles.is_empty());
        let want =
            SharedHandle { name: "cudaStream_t".into(), library: crate::profile::kind("driver"), target: "CUstream".into() };
        assert_eq!(api.libraries[1].shared_handles, [want]);
    }
}
