"""Rule packs: find, validate and compile the TOML files in ``detectors/``.

A rule pack is data (one TOML file per attack family) checked against ``detectors/schema.json``
and then against what a schema cannot say: the file, family and id prefixes agree, ids are unique
across packs, every pattern compiles and cannot match the empty string, and builtin rules name a
check the engine implements. Any problem raises :class:`RulePackError` naming the file, the rule id
and the problem. A broken pack is never skipped.

Error tree::

    ValueError
    └── RulePackError   a pack is missing, unreadable, invalid, or a pattern does not compile
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["BUILTINS", "CONTEXT_FAMILY", "FAMILIES", "PATTERN_FLAGS_DOC", "Rule", "RulePackError",
           "find_packs_dir", "load_rules", "pattern_flags"]

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FAMILIES: tuple[str, ...] = (
    "override", "addressed_to_ai", "authority", "template_spoof", "tool_coercion", "exfiltration",
    "secrecy", "prompt_extraction", "jailbreak_persona", "conditional_trigger", "hidden_carrier",
    "task_hijack",
)
# Not an attack family: "context" rules recognise text that *discusses* prompt injection and
# weaken nearby evidence (effect = "dampen"); they never appear as findings.
CONTEXT_FAMILY = "context"

# Checks implemented in code (engine.py) rather than by a pattern; a pack rule with ``builtin``
# gives them an id, weight, description and examples like any other rule.
BUILTINS: frozenset[str] = frozenset({
    "unicode_tags",          # Unicode tag characters spelling hidden ASCII
    "invisible_in_word",     # zero-width/bidi characters splitting a keyword
    "homoglyph_word",        # a mixed-script lookalike word that folds to a keyword
    "encoded_instruction",   # base64/hex/URL/rot13/tag-encoded text that decodes to an injection
    "quoted_example",        # context: evidence inside a short prose quotation (weakened)
    "code_literal",          # context: evidence inside a string literal of source code (weakened)
})


PATTERN_FLAGS_DOC = "IGNORECASE | DOTALL | MULTILINE (regex module, VERSION0)"


def pattern_flags() -> int:
    """The flags every rule pattern is compiled with (see ``PATTERN_FLAGS_DOC``)."""
    import regex

    return regex.IGNORECASE | regex.DOTALL | regex.MULTILINE | regex.VERSION0


class RulePackError(ValueError):
    """A rule pack is missing, unreadable or invalid (names the file, the rule and the problem)."""

    def __init__(self, file: str | Path, problem: str, rule_id: str | None = None) -> None:
        self.file = str(file)
        self.rule_id = rule_id
        self.problem = problem
        where = f"{self.file}: rule {rule_id}" if rule_id else self.file
        super().__init__(f"{where}: {problem}")


@dataclass(frozen=True, slots=True, eq=False)
class Rule:
    """One compiled rule from a pack."""

    id: str
    family: str
    description: str
    languages: tuple[str, ...]
    severity: str
    weight: float
    status: str
    patterns: tuple[str, ...]
    compiled: tuple[Any, ...]
    prefilter: tuple[str, ...]
    requires: tuple[str, ...]
    builtin: str | None
    window: int
    effect: str
    examples_match: tuple[str, ...]
    examples_no_match: tuple[str, ...]
    false_positives: tuple[str, ...]
    source: str

    @property
    def reason(self) -> str:
        """The one-line reason given in findings (the rule's description; never the payload)."""
        return self.description


def find_packs_dir() -> Path:
    """The folder holding the rule packs: inside the installed package, else the repository's."""
    try:
        from importlib.resources import files

        res = files("toolbound") / "detectors"
        if res.is_dir():
            return Path(str(res))
    except (ModuleNotFoundError, NotADirectoryError, TypeError):  # pragma: no cover
        pass
    repo = Path(__file__).resolve().parents[3] / "detectors"
    if repo.is_dir():
        return repo
    raise RulePackError(repo, "no rule packs found (expected toolbound/detectors inside the package "
                              "or detectors/ in the repository)")


def _schema(directory: Path) -> dict[str, Any]:
    path = directory / "schema.json"
    if not path.is_file():
        path = find_packs_dir() / "schema.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    except (OSError, ValueError) as exc:
        raise RulePackError(path, f"cannot read the pack schema: {exc}") from None


def _rule_id_at(data: dict[str, Any], path: Iterable[Any]) -> str | None:
    p = list(path)
    if len(p) >= 2 and p[0] == "rules" and isinstance(p[1], int):
        rules = data.get("rules")
        if isinstance(rules, list) and p[1] < len(rules) and isinstance(rules[p[1]], dict):
            rid = rules[p[1]].get("id")
            return str(rid) if rid is not None else f"#{p[1] + 1}"
    return None


def load_rules(directory: str | Path | None = None) -> list[Rule]:
    """Load, validate and compile every ``*.toml`` pack in ``directory`` (default: the shipped packs).

    Raises:
        RulePackError: on the first problem found, naming the file and rule.
    """
    import jsonschema
    import regex

    d = Path(directory) if directory is not None else find_packs_dir()
    files = sorted(d.glob("*.toml"))
    if not files:
        raise RulePackError(d, "no *.toml rule packs in this folder")
    validator = jsonschema.Draft202012Validator(_schema(d))
    flags = pattern_flags()
    seen: dict[str, str] = {}
    rules: list[Rule] = []
    for path in files:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise RulePackError(path, f"cannot read: {exc}") from None
        except tomllib.TOMLDecodeError as exc:
            raise RulePackError(path, f"not valid TOML: {exc}") from None
        errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
        if errors:
            err = errors[0]
            loc = "/".join(str(p) for p in err.absolute_path) or "(top level)"
            raise RulePackError(path, f"schema violation at {loc}: {err.message}",
                                _rule_id_at(data, err.absolute_path))
        family = data["family"]
        if path.stem != family:
            raise RulePackError(path, f"pack family {family!r} does not match the file name")
        for raw in data["rules"]:
            rid = raw["id"]
            if raw["family"] != family:
                raise RulePackError(path, f"family {raw['family']!r} differs from the pack's {family!r}", rid)
            if not rid.startswith(family + "."):
                raise RulePackError(path, f"id must start with {family + '.'!r}", rid)
            if rid in seen:
                raise RulePackError(path, f"duplicate id (also in {seen[rid]})", rid)
            seen[rid] = path.name
            patterns = tuple(raw.get("patterns", ()))
            builtin = raw.get("builtin")
            if bool(patterns) == bool(builtin):
                raise RulePackError(path, "a rule needs either 'patterns' or 'builtin' (not both)", rid)
            if builtin and builtin not in BUILTINS:
                raise RulePackError(path, f"unknown builtin {builtin!r}; known: {', '.join(sorted(BUILTINS))}", rid)
            compiled = []
            for i, pat in enumerate(patterns, 1):
                try:
                    c = regex.compile(pat, flags)
                except (regex.error, ValueError, OverflowError) as exc:
                    raise RulePackError(path, f"pattern {i} does not compile: {exc}", rid) from None
                if c.search("") is not None:
                    raise RulePackError(path, f"pattern {i} matches the empty string", rid)
                compiled.append(c)
            prefilter = tuple(p.lower() for p in raw.get("prefilter", ()))
            requires = tuple(p.lower() for p in raw.get("requires", ()))
            if requires and not prefilter:
                raise RulePackError(path, "'requires' needs a 'prefilter'", rid)
            for lit in prefilter + requires:
                if lit != lit.strip() or not lit:
                    raise RulePackError(path, f"prefilter literal {lit!r} has surrounding whitespace", rid)
                if len(lit) == 1 and lit.isalnum() and lit.isascii():
                    raise RulePackError(path, f"prefilter literal {lit!r} is a single letter or digit", rid)
            effect = raw.get("effect", "evidence")
            if (effect == "dampen") != (family == CONTEXT_FAMILY):
                raise RulePackError(path, "effect 'dampen' is for the context pack only, and only it", rid)
            ex = raw["examples"]
            rules.append(Rule(
                id=rid, family=family, description=raw["description"].strip(),
                languages=tuple(raw["languages"]), severity=raw["severity"],
                weight=float(raw["weight"]), status=raw["status"], patterns=patterns,
                compiled=tuple(compiled), prefilter=prefilter, requires=requires, builtin=builtin,
                window=int(raw.get("window", 300)), effect=effect,
                examples_match=tuple(ex["match"]), examples_no_match=tuple(ex["no_match"]),
                false_positives=tuple(raw.get("false_positives", ())), source=str(path),
            ))
    return rules
