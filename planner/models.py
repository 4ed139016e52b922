"""Planning models (scenarios, runs) arrive with the planning issue."""
