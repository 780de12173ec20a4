"""PyTorch under the shim: a cuBLAS matmul and a loop of small elementwise ops; prints RESULT."""
import torch

g = torch.Generator().manual_seed(7)
a = torch.randn(256, 256, generator=g).cuda()
b = torch.randn(256, 256, generator=g).cuda()
c = a @ b
x = torch.linspace(0, 1, 4096, device="cuda")
for i in range(50):
    x = torch.sin(x) * 1.01 + 0.001 * i
torch.cuda.synchronize()
ref = (a.double().cpu() @ b.double().cpu())
err = float((c.double().cpu() - ref).norm() / ref.norm())
print(f"RESULT matmul_sum={c.sum().item():.4f} loop_sum={x.sum().item():.6f} rel_err_ok={err < 1e-2}")
