"""Benchmarks: how close a deliberation comes to the model's own latency (`python -m benchmarks`)."""
