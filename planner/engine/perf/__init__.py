"""The performance model training and inference share: the parallel layout, the hardware and the numerics as the
formulas see them (`layout`, `hardware`), the achieved fraction of peak of GEMMs, attention and HBM (`efficiency`)
and the time of collectives on the scale-up and scale-out fabrics (`comm`)."""
