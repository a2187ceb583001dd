"""The result object's schema (grader/result_schema.toml), read once: what C++ (codegen) and Python
(run/result.py) generate their types from.

`dataclasses(methods)` makes the frozen dataclasses of every object, each with a `parse` that never
raises: a field of the wrong type reads as absent (its default), as a result file may have been
written by code under test."""

from __future__ import annotations

import dataclasses as dc
import re
from typing import Any, Callable

from .. import ROOT
from .compat import tomllib
from .contract import SCHEMAS

PATH = ROOT / "grader" / "result_schema.toml"

with open(PATH, "rb") as _f:
    _DOC = tomllib.load(_f)

SCHEMA: str = SCHEMAS["result"]
SCALARS = ("str", "int", "number", "bool", "object", "any", "list[int]", "list[str]", "ranges", "map[number]",
           "map[int]")


@dc.dataclass(frozen=True)
class Field:
    name: str
    type: str
    meaning: str
    optional: bool = False
    py: str = ""
    default: Any = None

    @property
    def attr(self) -> str:
        return self.py or self.name

    @property
    def object(self) -> str:
        """The object type a field holds, alone, in a list or in a map; "" for a scalar."""
        if self.type in SCALARS:
            return ""
        m = re.fullmatch(r"(?:list|map)\[(\w+)\]", self.type)
        return m[1] if m else self.type


@dc.dataclass(frozen=True)
class Object:
    name: str
    meaning: str
    fields: tuple[Field, ...]
    open: bool = False   # written whole by another program: may hold fields not listed


def _load() -> dict[str, Object]:
    out = {}
    for name, o in _DOC["objects"].items():
        out[name] = Object(name, o["meaning"], tuple(Field(**f) for f in o["fields"]), o.get("open", False))
    for o in out.values():
        for f in o.fields:
            if f.object and f.object not in out:
                raise ValueError(f"{PATH}: {o.name}.{f.name}: unknown type {f.type!r}")
    return out


OBJECTS: dict[str, Object] = _load()


def num(v: Any) -> float | None:
    """A JSON number, or the runner's spellings of non-finite ones ("nan", "inf", "-inf")."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if v in ("nan", "inf", "-inf"):
        return float(v)
    return None


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _list(v: Any) -> list:
    return v if isinstance(v, list) else []


def _ranges(v: Any) -> tuple[tuple[int, int], ...]:
    return tuple((a, b) for a, b in (x for x in _list(v) if isinstance(x, list) and len(x) == 2)
                 if _int(a) is not None and _int(b) is not None)


# Each scalar type's reader: the value, or None for absent or of the wrong type.
_READ: dict[str, Callable[[Any], Any]] = {
    "str": lambda v: v if isinstance(v, str) else None,
    "int": _int,
    "number": num,
    "bool": lambda v: v if isinstance(v, bool) else None,
    "object": lambda v: v if isinstance(v, dict) else None,
    "any": lambda v: v,
    "list[int]": lambda v: tuple(i for i in _list(v) if _int(i) is not None),
    "list[str]": lambda v: tuple(s for s in _list(v) if isinstance(s, str)),
    "ranges": _ranges,
    "map[number]": lambda v: {k: n for k, x in v.items() if (n := num(x)) is not None} if isinstance(v, dict) else None,
    "map[int]": lambda v: {k: x for k, x in v.items() if _int(x) is not None} if isinstance(v, dict) else None,
}
# What a field reads as when absent, by type, where the schema gives no default.
_EMPTY: dict[str, Callable[[], Any]] = {"str": str, "object": dict, "list[int]": tuple, "list[str]": tuple,
                                        "ranges": tuple, "map[number]": dict, "map[int]": dict}


def _empty(f: Field) -> Any:
    if f.default is not None:
        return f.default
    if f.type.startswith("list["):
        return ()
    if f.type.startswith("map["):
        return {}
    return _EMPTY.get(f.type, lambda: None)()


def _reader(f: Field, classes: dict[str, type]) -> Callable[[dict], Any]:
    """The function from a parsed JSON object to the field's Python value."""
    key, obj, empty = f.name, f.object, _empty(f)
    if f.type == "bool" and f.default is not None:   # absent: the default; present, only `true` is true
        return lambda d: d.get(key, f.default) is True
    if not obj:
        read = _READ[f.type]
        return lambda d: v if (v := read(d.get(key))) is not None and (v or f.default is None) else empty
    if f.type.startswith("list["):
        return lambda d: tuple(classes[obj].parse(x) for x in _list(d.get(key)) if isinstance(x, dict))
    if f.type.startswith("map["):
        return lambda d: ({k: classes[obj].parse(x if isinstance(x, dict) else {}) for k, x in d[key].items()}
                          if isinstance(d.get(key), dict) else {})
    return lambda d: classes[obj].parse(d.get(key))


def _annotation(f: Field) -> str:
    if f.object:
        return {"l": f"tuple[{f.object}, ...]", "m": f"dict[str, {f.object}]"}.get(f.type[0] if "[" in f.type else "",
                                                                                 f"{f.object} | None")
    return {"str": "str", "int": "int | None", "number": "float | None", "bool": "bool | None", "object": "dict",
            "any": "Any", "list[int]": "tuple[int, ...]", "list[str]": "tuple[str, ...]",
            "ranges": "tuple[tuple[int, int], ...]", "map[number]": "dict[str, float]", "map[int]": "dict[str, int]"}[f.type]


def dataclasses(methods: dict[str, type], module: str) -> dict[str, type]:
    """Every object of the schema as a frozen dataclass, named as in the schema, built on
    methods[name] where there is one (properties; `_fix(kw, doc)` may adjust what parse read, or
    return None to read the object as absent; `_extra`: fields not in the JSON, as
    make_dataclass takes them). `Cls.parse(v)` is None where v is not a JSON object."""
    classes: dict[str, type] = {}
    for o in OBJECTS.values():
        base = methods.get(o.name, object)
        fields = [(f.attr, _annotation(f), dc.field(default_factory=(lambda e=_empty(f): type(e)(e)))
                   if isinstance(_empty(f), (dict, tuple)) else dc.field(default=_empty(f))) for f in o.fields]
        readers = [(f.attr, _reader(f, classes)) for f in o.fields]

        def parse(cls, v: Any, _readers=readers):
            if not isinstance(v, dict):
                return None
            kw = {attr: read(v) for attr, read in _readers}
            fix = getattr(cls, "_fix", None)
            kw = fix(kw, v) if fix else kw
            return None if kw is None else cls(**kw)

        ns = {"parse": classmethod(parse), "__module__": module, "__doc__": o.meaning}
        classes[o.name] = dc.make_dataclass(o.name, fields + list(getattr(base, "_extra", ())), bases=(base,),
                                            namespace=ns, frozen=True)
    return classes


def violations(doc: Any, obj: str = "Result", where: str = "") -> list[str]:
    """Where a JSON document breaks the schema: a field it does not declare (in an object not
    `open`), or a value of the wrong type (a number's "nan"/"inf" strings are numbers)."""
    o = OBJECTS[obj]
    if not isinstance(doc, dict):
        return [f"{where or obj}: not an object"]
    out = []
    fields = {f.name: f for f in o.fields}
    for key, v in doc.items():
        f = fields.get(key)
        path = f"{where}.{key}" if where else key
        if f is None:
            out += [] if o.open else [f"{path}: not in the schema's {obj}"]
        elif f.object and f.type.startswith("list["):
            out += [f"{path}: not a list"] if not isinstance(v, list) else \
                [e for i, x in enumerate(v) for e in violations(x, f.object, f"{path}[{i}]")]
        elif f.object and f.type.startswith("map["):
            out += [f"{path}: not an object"] if not isinstance(v, dict) else \
                [e for k, x in v.items() for e in violations(x, f.object, f"{path}.{k}")]
        elif f.object:
            out += violations(v, f.object, path)
        elif f.type != "any" and _READ[f.type](v) is None:
            out.append(f"{path}: not {f.type}")
        elif f.type in ("list[int]", "list[str]", "ranges", "map[number]", "map[int]") and \
                len(_READ[f.type](v)) != len(v):
            out.append(f"{path}: an element is not {f.type}")
    return out


# ---- C++: tilelab/result_schema.hpp (written by codegen at configure time) ----

def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _cpp_type(f: Field) -> str:
    if f.object:
        kind = "List" if f.type.startswith("list[") else "Map" if f.type.startswith("map[") else "Object"
        return f"{kind}<{f.object}>"
    return {"str": "std::string", "int": "std::int64_t", "number": "double", "bool": "bool"}.get(f.type, "Json")


def cpp_header() -> str:
    """The C++ side of the schema: a tag per object, a typed constant per field, and the writer that
    accepts only those (a field not in the schema cannot be written through it)."""
    out = ["// Generated from grader/result_schema.toml by tilelab.specs.codegen. Do not edit.",
           "#pragma once", "#include \"tilelab/result_writer.hpp\"", "", "namespace tilelab::schema {", ""]
    out += [f"struct {o.name};  // {o.meaning}" for o in OBJECTS.values()]
    for o in OBJECTS.values():
        out += ["", f"namespace {_snake(o.name)} {{"]
        out += [f"inline constexpr Field<{_cpp_type(f)}, {o.name}> {f.name}{{\"{f.name}\"}};  // {f.meaning}"
                for f in o.fields]
        out.append(f"}}  // namespace {_snake(o.name)}")
    out += ["", "}  // namespace tilelab::schema", ""]
    return "\n".join(out)
