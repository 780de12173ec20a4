//! SAXPY through the safe layer only: NVRTC, module, buffers, checked launch, events, graph replay.
//! expect: compiles

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
let program = Program::create_program(c"extern \"C\" __global__ void saxpy(float a, const float *x, float *y, size_t n) {}", Some(c"k.cu"), &[], &[])?;
    program.compile_program(&[c"--gpu-architecture=compute_90"])?;
    let module = Module::from_ptx(&ctx, &std::ffi::CString::new(program.get_ptx()?)?)?;
    let saxpy = module.get_function(c"saxpy")?;
    let stream = Stream::create(&ctx, 0)?;
    let x = DeviceBuffer::from_host(&stream, &[1.0f32; 256])?;
    let mut y = DeviceBuffer::from_host(&stream, &[2.0f32; 256])?;
    let (start, stop) = (Event::create(&ctx, 0)?, Event::create(&ctx, 0)?);
    start.record(&stream)?;
    stream.launch(&saxpy, LaunchConfig::for_elements(256, 128), (2.0f32, &x, &mut y, 256usize))?;
    stop.record(&stream)?;
    stop.synchronize()?;
    let mut cap = stream.capture(driver::CUstreamCaptureMode::THREAD_LOCAL)?;
    cap.launch(&saxpy, LaunchConfig::for_elements(256, 128), (2.0f32, &x, &y, 256usize))?;
    let exec = cap.end()?.instantiate()?;
    exec.launch()?;
    let _out: Vec<f32> = y.to_vec()?;
    Ok(())
}
