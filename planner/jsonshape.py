"""A small check of JSON values against the subset of JSON Schema the API documents (type, enum, properties,
required, items, additionalProperties given as a schema), for data that did not come from the engine itself
(an imported file): each problem is "path: what is wrong". A null passes (the engine writes null for a figure
that does not apply, and the pages show a dash); a column that must not be null is the model's check."""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
}


def _is(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES.get(kind, (object,)))


def shape_problems(value: Any, schema: dict[str, Any], path: str) -> list[str]:
    """Every way `value` departs from `schema` (an empty list when it fits)."""
    if value is None:
        return []
    kind = schema.get("type")
    if kind and not _is(value, kind):
        return [f"{path}: must be {'an' if kind[0] in 'aeiou' else 'a'} {kind} (got {type(value).__name__})"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{path}: must be one of {', '.join(map(str, schema['enum']))} (got {value!r})"]
    problems: list[str] = []
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        problems += [f"{path}.{key}: is required" for key in schema.get("required", []) if key not in value]
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key in properties:
                problems += shape_problems(item, properties[key], f"{path}.{key}")
            elif isinstance(extra, dict):
                problems += shape_problems(item, extra, f"{path}.{key}")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            problems += shape_problems(item, schema["items"], f"{path}[{index}]")
    return problems
