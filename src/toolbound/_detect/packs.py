"""Rule packs: find, validate and compile the TOML files in ``detectors/``.

A rule pack is data (one TOML file per attack family) checked against ``detectors/schema.json``
and then against what a schema cannot say: the file, family and id prefixes agree, ids are unique
across packs, every pattern compiles and cannot match the empty string, and builtin rules name a
check the engine implements. Any problem raises :class:`RulePackError` naming the file, the rule id
and the problem. A broken pack is never skipped.

Compiling every pattern took most of a process's first scan (seconds), and a scan runs a few dozen
rules. So a pack folder may hold :data:`CHECKED_FILE`, the keys (:func:`pattern_key`) of patterns
that ``toolbound rules check`` compiled and tested; those compile the first time their rule runs
(:class:`CompiledPatterns`), every other pattern at load as before. The shipped list is written by
``toolbound rules check --write-checked`` and a test keeps it equal to the shipped patterns. A
stale list costs only time: a pattern it does not name is compiled and checked at load.

Error tree::

    ValueError
    └── RulePackError   a pack is missing, unreadable, invalid, or a pattern does not compile
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["BUILTINS", "CHECKED_FILE", "CONTEXT_FAMILY", "FAMILIES", "PATTERN_FLAGS_DOC", "CompiledPatterns", "Rule",
           "RulePackError", "checked_keys", "find_packs_dir", "load_rules", "pattern_flags", "pattern_key",
           "write_checked"]

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


CHECKED_FILE = "checked_patterns.txt"


def pattern_key(pattern: str) -> str:
    """The key of ``pattern`` in :data:`CHECKED_FILE` (sha256 of the flags and the pattern, 32 hex digits)."""
    return hashlib.sha256(f"{PATTERN_FLAGS_DOC}\n{pattern}".encode()).hexdigest()[:32]


def checked_keys(directory: str | Path) -> frozenset[str]:
    """The pattern keys listed in ``directory``'s :data:`CHECKED_FILE` (empty when there is none)."""
    path = Path(directory) / CHECKED_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return frozenset()
    except (OSError, UnicodeDecodeError) as exc:
        raise RulePackError(path, f"cannot read: {exc}") from None
    return frozenset(x.strip() for x in text.splitlines() if x.strip() and not x.startswith("#"))


def write_checked(directory: str | Path, rules: Iterable[Rule]) -> Path:
    """Write ``directory``'s :data:`CHECKED_FILE`: the keys of every pattern of ``rules`` (call it
    only after every pattern compiled and every example passed: ``toolbound rules check``)."""
    keys = sorted({pattern_key(p) for r in rules for p in r.patterns})
    path = Path(directory) / CHECKED_FILE
    path.write_text("# Patterns `toolbound rules check` compiled and tested (sha256 of flags + pattern, 32 hex).\n"
                    "# Listed patterns compile when their rule first runs; others at load. Rewrite with\n"
                    "# `toolbound rules check --write-checked`.\n" + "".join(k + "\n" for k in keys),
                    encoding="utf-8")
    return path


class CompiledPatterns(Sequence[Any]):
    """A rule's compiled patterns, each compiled the first time it is asked for (patterns that were
    not checked before are compiled at load and handed in ``ready``). A pattern that fails then
    raises :class:`RulePackError` naming the file and rule, as it would have at load."""

    __slots__ = ("_sources", "_done", "_file", "_rule_id")

    def __init__(self, sources: tuple[str, ...], ready: dict[int, Any], file: str, rule_id: str) -> None:
        self._sources = sources
        self._done: list[Any] = [ready.get(j) for j in range(len(sources))]
        self._file = file
        self._rule_id = rule_id

    def __len__(self) -> int:
        return len(self._sources)

    def __getitem__(self, j: Any) -> Any:
        if isinstance(j, slice):
            return tuple(self[k] for k in range(len(self._sources))[j])
        c = self._done[j]
        if c is None:
            c = self._done[j] = _compile(self._sources[j], j if j >= 0 else j + len(self._sources), self._file,
                                         self._rule_id)
        return c

    def __iter__(self) -> Iterator[Any]:
        return (self[j] for j in range(len(self._sources)))

    def compiled_count(self) -> int:
        """How many of the patterns are compiled so far."""
        return sum(c is not None for c in self._done)


def _compile(pat: str, j: int, file: str | Path, rule_id: str) -> Any:
    import regex

    try:
        c = regex.compile(pat, pattern_flags())
    except (regex.error, ValueError, OverflowError) as exc:
        raise RulePackError(file, f"pattern {j + 1} does not compile: {exc}", rule_id) from None
    if c.search("") is not None:
        raise RulePackError(file, f"pattern {j + 1} matches the empty string", rule_id)
    return c


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
    compiled: Sequence[Any]  # a tuple, or CompiledPatterns (compiled on first use)
    prefilter: tuple[str, ...]
    requires: tuple[str, ...]
    builtin: str | None
    window: int
    effect: str
    examples_match: tuple[str, ...]
    examples_no_match: tuple[str, ...]
    false_positives: tuple[str, ...]
    source: str
    # ASCII requires literals ending in a letter or digit match only as whole words (the letter or
    # digit after them ends the word): "ma" holds in "ma carte", not in "map".
    requires_words: bool = False

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


def load_rules(directory: str | Path | None = None, *, compile_all: bool = False) -> list[Rule]:
    """Load, validate and compile every ``*.toml`` pack in ``directory`` (default: the shipped packs).

    A pattern listed in the folder's :data:`CHECKED_FILE` is compiled the first time its rule runs;
    ``compile_all`` compiles and checks every pattern now (``toolbound rules check`` does).

    Raises:
        RulePackError: on the first problem found, naming the file and rule.
    """
    import jsonschema

    d = Path(directory) if directory is not None else find_packs_dir()
    files = sorted(d.glob("*.toml"))
    if not files:
        raise RulePackError(d, "no *.toml rule packs in this folder")
    validator = jsonschema.Draft202012Validator(_schema(d))
    checked = frozenset() if compile_all else checked_keys(d)
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
            ready = {j: _compile(pat, j, path, rid) for j, pat in enumerate(patterns)
                     if pattern_key(pat) not in checked}
            prefilter = tuple(p.lower() for p in raw.get("prefilter", ()))
            requires = tuple(p.lower() for p in raw.get("requires", ()))
            if requires and not prefilter:
                raise RulePackError(path, "'requires' needs a 'prefilter'", rid)
            if raw.get("requires_words") and not requires:
                raise RulePackError(path, "'requires_words' needs a 'requires' list", rid)
            for name, lits in (("prefilter", prefilter), ("requires", requires)):
                twice = sorted({lit for lit in lits if lits.count(lit) > 1})
                if twice:
                    raise RulePackError(path, f"{name} lists {', '.join(map(repr, twice))} more than once", rid)
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
                compiled=CompiledPatterns(patterns, ready, str(path), rid), prefilter=prefilter, requires=requires, builtin=builtin,
                window=int(raw.get("window", 300)), effect=effect,
                examples_match=tuple(ex["match"]), examples_no_match=tuple(ex["no_match"]),
                false_positives=tuple(raw.get("false_positives", ())), source=str(path),
                requires_words=bool(raw.get("requires_words", False)),
            ))
    return rules
