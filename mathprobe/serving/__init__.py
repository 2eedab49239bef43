"""Serving open models for the `triton:` backend: the tritonserver launcher (CPU, from the
nvidia-pytriton wheel), the transformers runtime the Python-backend models in triton_models/
wrap, and a tiny random model built offline for tests and benchmarks."""
