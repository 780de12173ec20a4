//! Where no driver is installed (CI), a typed call is an `Err` naming the library, never a panic;
//! the raw call returns CUDA_ERROR_STUB_LIBRARY and the loader says what it looked for.

use cudagen::driver;

#[test]
fn missing_driver_is_an_error_value_naming_the_library() {
    match driver::init(0) {
        Ok(()) => println!("skipped: a CUDA driver is installed here"),
        Err(e) => {
            let text = e.to_string();
            assert!(text.contains("libcuda.so.1"), "{text}");
            assert_eq!(e.code(), driver::CUresult::ERROR_STUB_LIBRARY);
            let raw = unsafe { driver::sys::cuInit(0) };
            assert_eq!(raw, driver::CUresult::ERROR_STUB_LIBRARY);
            // A raw versioned entry names its ABI symbol and the CUDA version it needs.
            let mut dptr = driver::CUdeviceptr::default();
            let raw = unsafe { driver::sys::cuMemAlloc_v2(&mut dptr, 1 << 20) };
            assert_eq!(raw, driver::CUresult::ERROR_STUB_LIBRARY);
            let msg = cudagen::loader::last_error_message().expect("the loader keeps its message");
            assert!(msg.starts_with("libcuda.so.1 not found (needed for cuMemAlloc_v2, CUDA 3.2)"), "{msg}");
        }
    }
}
