"""The engine's input: the contract's JSON read into typed, SI-unit specs, every problem named by its field path.

`parse.parse` is the entry point (the whole payload and its `workload`); `cluster` reads the cluster, economics,
goodput and search objects, `model` the `workload.model` object (presets included), `parallelism` the
`workload.parallelism` object and the layout rules (`layout_problems`, the one judge of a valid layout).
The vocabulary they build: `specs` (GPU, model, parallelism), `scenario` (the parsed whole), `errors` (Problem,
SpecError), `units`, `fields` (the JSON reader), `catalog` (GPU ids from catalog/seed/gpus.csv) and `presets`
(published model shapes).
"""
