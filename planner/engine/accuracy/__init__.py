"""How far to trust the engine: the published cases it ships (`data/validation.csv`), their evaluation
(`validation`, closed-form checks in `formulas`), the low/high ranges derived from their errors (`uncertainty`)
and the one-off calibration of the fitted constants (`calibrate`)."""
