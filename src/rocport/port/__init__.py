"""``rocport port``: translate CUDA C/C++ source trees to HIP."""
