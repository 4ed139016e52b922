"""Everything around the GPUs: the scale-out network (`network`), power, cooling, energy and carbon (`power`) and
the total cost of ownership (`tco`)."""
