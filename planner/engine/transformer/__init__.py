"""The arithmetic of a decoder-only transformer: parameter counts (`params`), the shape the formulas read
(`shape`) and FLOPs per training token (`flops`)."""
