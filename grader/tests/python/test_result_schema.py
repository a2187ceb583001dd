"""The result object's schema (grader/result_schema.toml) against its readers and writers: every
field it declares reads back into run/result.py's dataclasses, a field of the wrong type reads as
absent, docs/grading.md's table lists exactly its fields, and the results the judge wrote in a
build tree hold nothing it does not declare."""

from __future__ import annotations

import json
import re

import pytest

from tilelab import ROOT
from tilelab.run import result
from tilelab.specs import codegen, resultschema
from tilelab.specs.resultschema import OBJECTS


def _example(obj: str) -> dict:
    """A document with every field of obj, each with a value its reader keeps."""
    out = {}
    for f in OBJECTS[obj].fields:
        if f.object:
            e = _example(f.object)
            out[f.name] = [e] if f.type.startswith("list[") else {"a": e} if f.type.startswith("map[") else e
        else:
            out[f.name] = {"str": "x", "int": 7, "number": 1.5, "object": {"k": 1}, "any": {"k": 1},
                           "list[int]": [1, 2], "list[str]": ["01", "10"], "ranges": [[1, 2]],
                           "map[number]": {"a": 1.5}, "map[int]": {"a": 2},
                           "bool": f.default is not True}[f.type]
    return out


def _expected(f: resultschema.Field, v):
    """What run/result.py holds for the example's value v of field f."""
    if f.object:
        return v
    return {"list[int]": tuple, "list[str]": tuple, "ranges": lambda x: tuple(map(tuple, x))}.get(f.type, lambda x: x)(v)


def _check_reads_back(obj: str, doc: dict, parsed) -> None:
    assert parsed is not None, obj
    for f in OBJECTS[obj].fields:
        got, v = getattr(parsed, f.attr), doc[f.name]
        if obj == "Result" and f.name == "shape":
            assert got == (7, 7, 7)
        elif f.object and f.type.startswith("list["):
            assert len(got) == 1, (obj, f.name)
            _check_reads_back(f.object, v[0], got[0])
        elif f.object and f.type.startswith("map["):
            assert set(got) == {"a"}, (obj, f.name)
            _check_reads_back(f.object, v["a"], got["a"])
        elif f.object:
            _check_reads_back(f.object, v, got)
        else:
            assert got == _expected(f, v), (obj, f.name, got)


def test_every_field_of_the_schema_reads_back():
    doc = _example("Result")
    assert resultschema.violations(doc) == []
    _check_reads_back("Result", doc, result.Result.parse(json.loads(json.dumps(doc))))


_WRONG = {"str": 5, "int": "5", "number": "many", "bool": "yes", "object": [1], "list[int]": "x", "list[str]": "x",
          "ranges": "x", "map[number]": "x", "map[int]": "x"}


@pytest.mark.parametrize("obj", list(OBJECTS))
def test_a_field_of_the_wrong_type_reads_as_absent(obj):
    cls, doc = getattr(result, obj), _example(obj)
    for f in OBJECTS[obj].fields:
        if f.type == "any":
            continue
        wrong = dict(doc, **{f.name: _WRONG.get(f.type, "x")})
        absent = {k: v for k, v in doc.items() if k != f.name}
        assert resultschema.violations(wrong, obj), (obj, f.name)
        if f.type == "bool" and f.default is not None:   # only `true` is true: a `pass` of "yes" is no pass
            assert getattr(cls.parse(wrong), f.attr) is False
            continue
        got, want = cls.parse(wrong), cls.parse(absent)
        assert got == want, (obj, f.name)


def test_a_field_the_schema_does_not_declare_is_a_violation():
    assert resultschema.violations({"verdict": "pass", "verdcit": "pass"}) == ["verdcit: not in the schema's Result"]
    assert resultschema.violations({"launch": {"anything": 1}}) == []    # Launch is open: the worker's probe writes it


def test_the_cpp_header_has_a_field_constant_for_every_field():
    header = resultschema.cpp_header()
    for o in OBJECTS.values():
        for f in o.fields:
            assert re.search(rf"Field<[^>]+>*, {o.name}> {f.name}\{{\"{f.name}\"\}};", header), (o.name, f.name)
    assert "result_schema.hpp" in (ROOT / "grader/tilelab/specs/codegen.py").read_text() and codegen.resultschema


def test_grading_md_lists_exactly_the_result_fields():
    text = (ROOT / "docs/grading.md").read_text()
    table = next(b for b in text.split("## The result object", 1)[1].split("\n\n") if b.startswith("| field"))
    rows = [line.split("|")[1] for line in table.splitlines()[2:]]
    documented = {name for cell in rows for name in re.findall(r"`(\w+)`", cell)}
    assert documented == {f.name for f in OBJECTS["Result"].fields}


def test_results_the_judge_wrote_follow_the_schema():
    files = sorted([*ROOT.glob("build/*/results/*.json"), *ROOT.glob("build/*/kit-grade/*/case*/results/*.json")])
    if not files:
        pytest.skip("no build tree with results (ctest -L kit-grade or -L emu)")
    bad = {}
    for p in files:
        try:
            doc = json.loads(p.read_text())
        except ValueError:
            continue
        if isinstance(doc, dict) and doc.get("schema") == resultschema.SCHEMA and (v := resultschema.violations(doc)):
            bad[p.name] = v
    assert bad == {}
