//! The status codes the bindings return on their own account (library or entry point missing,
//! argument refused, panic caught): named in each library's profile, checked against the status
//! enum where the headers name the code.

use crate::diag::{Error, Result};
use crate::ir::{Library, StatusCodes};

pub fn run(lib: &mut Library) -> Result<()> {
    let s = &lib.profile().status;
    let codes = [&s.library_missing, &s.symbol_missing, &s.invalid_argument, &s.internal];
    let status = lib.status_enum.as_deref().and_then(|s| lib.enum_named(s));
    for (name, value) in codes.into_iter().chain([&s.success]) {
        if let Some(v) = status.and_then(|e| e.variants.iter().find(|v| &v.name == name)).filter(|v| v.value != *value) {
            return Err(Error::new(format!("passes::status: {name} is {} in the headers, {value} in the profile", v.value)));
        }
    }
    let [library_missing, symbol_missing, invalid_argument, internal] = codes.map(|(_, v)| *v);
    lib.status_codes = Some(StatusCodes { library_missing, symbol_missing, invalid_argument, internal });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Doc, Enum, EnumVariant, Location, Names, Prim};

    fn driver(variants: &[(&str, i64)]) -> Library {
        let mut lib = Library::new(crate::profile::kind("driver"));
        let v =
            |&(name, value): &(&str, i64)| EnumVariant { name: name.into(), value, doc: Doc::default(), names: Names::default() };
        lib.enums.push(Enum {
            name: "CUresult".into(),
            tag: None,
            variants: variants.iter().map(v).collect(),
            is_flags: false,
            repr: Prim::UInt,
            doc: Doc::default(),
            location: Location::default(),
            names: Names::default(),
        });
        lib.status_enum = Some("CUresult".into());
        lib
    }

    #[test]
    fn codes_come_from_the_profile_and_must_agree_with_the_headers() {
        let mut lib = driver(&[("CUDA_SUCCESS", 0), ("CUDA_ERROR_STUB_LIBRARY", 34)]);
        run(&mut lib).unwrap();
        let c = lib.status_codes.unwrap();
        assert_eq!((c.library_missing, c.symbol_missing, c.invalid_argument, c.internal), (34, 500, 1, 999));
        let e = run(&mut driver(&[("CUDA_ERROR_NOT_FOUND", 404)])).unwrap_err().to_string();
        assert!(e.contains("CUDA_ERROR_NOT_FOUND is 404 in the headers, 500 in the profile"), "{e}");
        let e = run(&mut driver(&[("CUDA_SUCCESS", 1)])).unwrap_err().to_string();
        assert!(e.contains("CUDA_SUCCESS is 1 in the headers, 0 in the profile"), "{e}");
        // The codes are the library's, with or without a status enum in the headers.
        let mut bare = Library::new(crate::profile::kind("nvrtc"));
        run(&mut bare).unwrap();
        assert_eq!(bare.status_codes.map(|c| c.library_missing), Some(11));
    }
}
