"""JAX under the shim: one jitted function on the GPU; prints RESULT."""
import jax
import jax.numpy as jnp

assert jax.devices()[0].platform == "gpu", jax.devices()


@jax.jit
def f(x):
    return jnp.sum(jnp.sin(x) * 2.0 + x * x)


x = jnp.linspace(0.0, 1.0, 1 << 16, dtype=jnp.float32)
# One decimal: the float32 sum's last bit follows the reduction order XLA's autotuning picks, which
# changed between runs on the same machine (82098.914 / 82098.922, 1 ulp), with or without the shim.
print(f"RESULT jit_sum={float(f(x)):.1f}")
