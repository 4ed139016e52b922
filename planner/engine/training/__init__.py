"""Training workloads: memory per GPU (`memory`), the time of one step and throughput (`step_time`) and the share
of wall-clock time spent making progress (`goodput`)."""
