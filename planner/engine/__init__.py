"""The sizing engine: pure Python + numpy, no Django. Entry points live in `planner.engine.api`."""
