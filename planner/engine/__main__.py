"""Command line (docs/engine-contract.md):

    python -m planner.engine estimate FILE.json|-    one JSON object on stdout, exit 0
    python -m planner.engine validate                the engine against the published runs it ships (exit 0/1)
    python -m planner.engine search FILE.json|-      searched configurations, one JSON object, exit 0
    python -m planner.engine size FILE.json|-        per GPU type the cheapest layout and GPU count for a service
    python -m planner.engine fleet FILE.json|-       what to buy each period and where each workload runs

Bad input (invalid JSON, a missing file, a bad field) exits 2 with one line per problem on stderr, each naming
the field path; it never prints a traceback.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from planner.engine.inputs.errors import SpecError

USAGE = (
    "usage: python -m planner.engine {estimate FILE|-, search FILE|-, size FILE|-, fleet FILE|-, validate}"
)
EXIT_OK, EXIT_FAIL, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


class InputError(Exception):
    """The input could not be read or is not JSON (reported like a SpecError, exit 2)."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a valid JSON number")


def read_payload(source: str, stdin: TextIO) -> Any:
    try:
        if source == "-":
            text = stdin.read()
        else:
            with open(source, encoding="utf-8") as handle:
                text = handle.read()
    except FileNotFoundError:
        raise InputError(f"{source}: no such file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"{source}: cannot read ({err.__class__.__name__}: {err})") from None
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as err:
        raise InputError(f"input: invalid JSON at line {err.lineno} column {err.colno}: {err.msg}") from None
    except (ValueError, RecursionError) as err:
        raise InputError(f"input: invalid JSON: {err}") from None


@contextlib.contextmanager
def native_output_to_stderr() -> Iterator[None]:
    """Send what native libraries print on file descriptor 1 (HiGHS's diagnostics) to stderr, so stdout stays one
    JSON object."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError):
        yield
        return
    try:
        os.dup2(2, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def main(
    argv: list[str] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    args = sys.argv[1:] if argv is None else argv
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    if not args or args[0] not in ("estimate", "search", "size", "fleet", "validate"):
        print(USAGE, file=stderr)
        return EXIT_BAD_INPUT
    verb = args[0]
    if verb == "validate":
        from planner.engine.accuracy.validation import print_table

        return print_table(stdout)
    if len(args) != 2:
        print(USAGE, file=stderr)
        return EXIT_BAD_INPUT
    try:
        payload = read_payload(args[1], stdin)
        from planner.engine import api

        verbs = {
            "estimate": api.estimate,
            "search": api.search,
            "size": api.size_service,
            "fleet": api.fleet,
        }
        with native_output_to_stderr():
            result = verbs[verb](payload)
        text = json.dumps(result, allow_nan=False)
    except InputError as err:
        print(err, file=stderr)
        return EXIT_BAD_INPUT
    except SpecError as err:
        for problem in err.problems:
            print(problem, file=stderr)
        return EXIT_BAD_INPUT
    except RecursionError:
        print("input: nested too deeply", file=stderr)
        return EXIT_BAD_INPUT
    except Exception as err:  # an engine bug: say so in one line, never a traceback
        print(f"internal error (please report): {err.__class__.__name__}: {err}", file=stderr)
        return EXIT_INTERNAL
    print(text, file=stdout)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
