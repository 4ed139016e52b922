"""The engine's two kinds of failure.

Bad input raises `SpecError`, which carries one `Problem` per bad field (a dotted path and a message). A valid
scenario that cannot run (the model does not fit) is not an error: it is a normal result with `fits: false` and a
warning. `assert` is reserved for the engine's own bugs.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class SpecError(ValueError):
    """Invalid input. `problems` lists every bad field, each with its path (`workload.parallelism.tp`)."""

    def __init__(self, problems: list[Problem] | Problem):
        self.problems: list[Problem] = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__("; ".join(str(p) for p in self.problems))

    @classmethod
    def at(cls, path: str, message: str) -> SpecError:
        return cls([Problem(path, message)])

    def as_dict(self) -> dict[str, list[str]]:
        """Field path -> messages, for JSON error responses."""
        out: dict[str, list[str]] = {}
        for p in self.problems:
            out.setdefault(p.path, []).append(p.message)
        return out
