"""Inference workloads. Continuous batching (the default; docs/serving-model.md): `step` (one engine step on a
replica), `load` (a replica under a request rate or a number of clients: fluid state, queueing, percentiles),
`kvcache` (paged KV memory), `layout` (serving layouts and the GPU as the step model sees it), `shape` (the model
split the way layouts split it), `workload` (lengths, speculative decoding, the serving inputs), `rates` (inference's
own achieved rates, sourced or fitted on the serving calibration group), `service` (a deployment under a load),
`continuous` (the `inference` output section), `sizing` and `sizing_report` (the "size a service" answer). Static
batching: `roofline`."""
