"""CUDA/HIP source rules, one module per rule."""
