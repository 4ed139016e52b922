"""Generic GPU jobs: time on N GPUs from a single-GPU run by Amdahl's or Gustafson's law (`scaling`)."""
