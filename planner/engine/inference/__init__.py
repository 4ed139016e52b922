"""Inference workloads: KV cache, memory fit, latency and throughput on a roofline (`roofline`)."""
