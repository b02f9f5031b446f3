"""Every rule's examples, run through the real scanner (folding, prefilter, windows)."""

from __future__ import annotations

import pytest

from toolbound._detect.check import _ids
from toolbound._detect.engine import Scanner
from toolbound._detect.packs import FAMILIES, load_rules

RULES = load_rules()
SCANNER = Scanner(RULES)


def _cases(kind: str) -> list:
    out = []
    for r in RULES:
        examples = r.examples_match if kind == "match" else r.examples_no_match
        for i, ex in enumerate(examples):
            out.append(pytest.param(r.id, ex, id=f"{r.id}-{kind}-{i}"))
    return out


@pytest.mark.parametrize(("rule_id", "text"), _cases("match"))
def test_example_matches(rule_id: str, text: str) -> None:
    assert rule_id in _ids(SCANNER, text)


@pytest.mark.parametrize(("rule_id", "text"), _cases("no_match"))
def test_example_does_not_match(rule_id: str, text: str) -> None:
    assert rule_id not in _ids(SCANNER, text)


def test_every_family_has_a_pack_and_rules() -> None:
    families = {r.family for r in RULES}
    assert set(FAMILIES) <= families


def test_every_rule_has_two_examples_each_way() -> None:
    for r in RULES:
        assert len(r.examples_match) >= 2 and len(r.examples_no_match) >= 2, r.id


def test_ids_are_stable_shape_and_unique() -> None:
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids))
    for r in RULES:
        assert r.id.startswith(r.family + ".")
