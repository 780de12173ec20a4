//! The typed `driver::stream_end_capture`: the graph it returns keeps nothing alive.
//! expect: E0133

use cudagen::driver;

fn main() {
    let _ = driver::stream_end_capture(driver::CUstream::null());
}
