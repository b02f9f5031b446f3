"""Checking rule packs: schema, compilation (via :func:`load_rules`) and every rule's examples.

Examples run through the real scanner (folding, prefilter, windows), so a rule whose prefilter
misses its own example fails here, not silently in production.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolbound._detect.packs import Rule, load_rules

__all__ = ["ExampleFailure", "check_examples", "check_packs", "unchecked_patterns"]


@dataclass(frozen=True, slots=True)
class ExampleFailure:
    """One example that did not behave as its rule says."""

    rule_id: str
    source: str
    kind: str  # "match" (expected a finding, got none) or "no_match" (got an unexpected finding)
    example: str
    hint: str = ""

    def describe(self) -> str:
        want = "should match but did not" if self.kind == "match" else "should not match but did"
        ex = self.example if len(self.example) <= 100 else self.example[:97] + "..."
        tail = f" ({self.hint})" if self.hint else ""
        return f"{Path(self.source).name}: {self.rule_id}: example {want}: {ex!r}{tail}"


def check_examples(rules: list[Rule]) -> list[ExampleFailure]:
    """Run every rule's examples through a scanner built from ``rules``."""
    from toolbound._detect.engine import Scanner
    from toolbound._detect.fold import fold

    scanner = Scanner(rules)
    failures: list[ExampleFailure] = []
    for rule in rules:
        for ex in rule.examples_match:
            ids = _ids(scanner, ex)
            if rule.id not in ids:
                hint = ""
                if rule.compiled:
                    ft = fold(ex).text
                    if any(p.search(ft) for p in rule.compiled):
                        hint = "a pattern matches the folded text: the prefilter or window misses it"
                        sup = scanner._superset
                        data = ft.encode("ascii") if ft.isascii() else None
                        ri = scanner.rules.index(rule)
                        if sup is not None and data is not None and not sup.possible(ri, data, 0, len(data)):
                            hint = ("a pattern matches the folded text but its RE2 superset does not "
                                    "(superset.py cannot read this pattern soundly)")
                    else:
                        hint = "no pattern matches the folded text"
                failures.append(ExampleFailure(rule.id, rule.source, "match", ex, hint))
        for ex in rule.examples_no_match:
            ids = _ids(scanner, ex)
            if rule.id in ids:
                failures.append(ExampleFailure(rule.id, rule.source, "no_match", ex))
    return failures


def _ids(scanner, text: str) -> set[str]:  # type: ignore[no-untyped-def]
    """Ids of the rules that fire on ``text``: evidence rules, plus context rules that matched
    (pattern context rules) or weakened a finding (builtin context rules)."""
    from toolbound._detect.fold import fold
    from toolbound._detect.packs import CONTEXT_FAMILY

    findings, weakened_by = scanner.explain(text)
    ids = {f.rule_id for f in findings} | weakened_by
    matches = scanner._match(fold(text).text, allow_rot13=False)[0]
    ids |= {scanner.rules[i].id for i in matches if scanner.rules[i].family == CONTEXT_FAMILY}
    return ids


def check_packs(directory: str | Path | None = None) -> tuple[list[Rule], list[ExampleFailure]]:
    """Load and validate the packs, compiling every pattern now (raises ``RulePackError``), then
    check every example."""
    rules = load_rules(directory, compile_all=True)
    return rules, check_examples(rules)


def unchecked_patterns(directory: str | Path | None, rules: list[Rule]) -> int:
    """How many patterns of ``rules`` the folder's checked-patterns list does not name (they are
    compiled at every load instead of on first use; ``toolbound rules check --write-checked``)."""
    from toolbound._detect.packs import checked_keys, find_packs_dir, pattern_key

    keys = checked_keys(directory if directory is not None else find_packs_dir())
    return sum(pattern_key(p) not in keys for r in rules for p in r.patterns)
