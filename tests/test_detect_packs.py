"""Rule packs are validated loudly at load time: a broken pack is an error naming file and rule."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from toolbound._detect.check import check_packs
from toolbound._detect.packs import RulePackError, find_packs_dir, load_rules

GOOD_RULE = '''
[[rules]]
id = "override.tmp_rule"
family = "override"
description = "A temporary rule used by the tests."
languages = ["en"]
severity = "high"
weight = 0.8
status = "experimental"
prefilter = ["zorblax"]
patterns = ['{pattern}']
examples.match = ["zorblax now", "please zorblax"]
examples.no_match = ["nothing here", "zorb lax"]
'''


def _pack_dir(tmp_path: Path, body: str, name: str = "override.toml") -> Path:
    d = tmp_path / "packs"
    d.mkdir(parents=True)
    shutil.copy(find_packs_dir() / "schema.json", d / "schema.json")
    (d / name).write_text('family = "override"\ndescription = "Temporary pack for tests."\n' + body,
                          encoding="utf-8")
    return d


def test_good_temp_pack_loads(tmp_path: Path) -> None:
    rules = load_rules(_pack_dir(tmp_path, GOOD_RULE.format(pattern=r"\bzorblax\b")))
    assert [r.id for r in rules] == ["override.tmp_rule"]


def test_pattern_that_does_not_compile_names_file_and_rule(tmp_path: Path) -> None:
    d = _pack_dir(tmp_path, GOOD_RULE.format(pattern=r"\bzorblax(\b"))
    with pytest.raises(RulePackError) as exc:
        load_rules(d)
    msg = str(exc.value)
    assert "override.toml" in msg and "override.tmp_rule" in msg and "pattern 1" in msg
    assert isinstance(exc.value, ValueError)


def test_schema_violation_names_file_and_rule(tmp_path: Path) -> None:
    body = GOOD_RULE.format(pattern=r"\bzorblax\b").replace('severity = "high"', 'severity = "extreme"')
    with pytest.raises(RulePackError) as exc:
        load_rules(_pack_dir(tmp_path, body))
    assert "override.toml" in str(exc.value) and "override.tmp_rule" in str(exc.value)


def test_empty_matching_pattern_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(RulePackError, match="empty string"):
        load_rules(_pack_dir(tmp_path, GOOD_RULE.format(pattern=r"(?:zorblax)?")))


def test_invalid_toml_and_family_mismatch(tmp_path: Path) -> None:
    with pytest.raises(RulePackError, match="not valid TOML"):
        load_rules(_pack_dir(tmp_path, "[[rules]\n"))
    with pytest.raises(RulePackError, match="does not match the file name"):
        load_rules(_pack_dir(tmp_path / "x", GOOD_RULE.format(pattern=r"\bzorblax\b"), name="secrecy.toml"))


def test_duplicate_ids_are_rejected(tmp_path: Path) -> None:
    body = GOOD_RULE.format(pattern=r"\bzorblax\b") * 2
    with pytest.raises(RulePackError, match="duplicate id"):
        load_rules(_pack_dir(tmp_path, body))


def test_a_literal_listed_twice_is_rejected(tmp_path: Path) -> None:
    body = GOOD_RULE.format(pattern=r"\bzorblax\b").replace('prefilter = ["zorblax"]', 'prefilter = ["zorblax", "Zorblax"]')
    with pytest.raises(RulePackError, match="override.tmp_rule.*prefilter lists 'zorblax' more than once"):
        load_rules(_pack_dir(tmp_path / "a", body))
    body = GOOD_RULE.format(pattern=r"\bzorblax\b").replace('prefilter = ["zorblax"]', 'prefilter = ["zorblax"]\nrequires = ["now", "now"]')
    with pytest.raises(RulePackError, match="requires lists 'now' more than once"):
        load_rules(_pack_dir(tmp_path / "b", body))


def test_failing_example_is_reported(tmp_path: Path) -> None:
    body = GOOD_RULE.format(pattern=r"\bzorblax\b").replace('"nothing here"', '"zorblax again"')
    _, failures = check_packs(_pack_dir(tmp_path, body))
    assert len(failures) == 1 and failures[0].kind == "no_match"
    assert "override.tmp_rule" in failures[0].describe()


def test_rules_check_cli_fails_loudly_on_a_broken_pack(tmp_path: Path) -> None:
    d = _pack_dir(tmp_path, GOOD_RULE.format(pattern=r"\bzorblax(\b"))
    code = "import sys; from toolbound._cli.rules import _check; sys.exit(_check(sys.argv[1]))"
    src = str(Path(__file__).resolve().parents[1] / "src")
    res = subprocess.run([sys.executable, "-c", code, str(d)], capture_output=True, text=True,
                         env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"})
    assert res.returncode == 1
    assert "override.tmp_rule" in res.stderr and "override.toml" in res.stderr


def test_shipped_packs_pass_rules_check() -> None:
    rules, failures = check_packs()
    assert rules and not failures, [f.describe() for f in failures]


def test_shipped_checked_list_names_every_shipped_pattern() -> None:
    """detectors/checked_patterns.txt lets the shipped patterns compile on first use; a pattern it
    does not name is compiled at every load (slower, never wrong)."""
    from toolbound._detect.packs import checked_keys, pattern_key

    rules = load_rules()
    want = {pattern_key(p) for r in rules for p in r.patterns}
    assert checked_keys(find_packs_dir()) == want, \
        "detectors/checked_patterns.txt is stale: run `toolbound rules check --write-checked`"
    assert all(r.compiled.compiled_count() == 0 for r in rules if r.patterns)  # nothing compiled yet
    r = next(r for r in rules if len(r.patterns) > 1)
    assert r.compiled[1].pattern == r.patterns[1] and r.compiled.compiled_count() == 1
    assert [c.pattern for c in r.compiled] == list(r.patterns) and r.compiled[-1] is r.compiled[len(r.patterns) - 1]


def test_a_pattern_not_in_the_checked_list_is_checked_at_load(tmp_path: Path) -> None:
    from toolbound._detect.packs import CHECKED_FILE, pattern_key

    broken = r"\bzorblax(\b"
    d = _pack_dir(tmp_path, GOOD_RULE.format(pattern=broken))
    (d / CHECKED_FILE).write_text("# a list naming another pattern\n" + pattern_key(r"\bzorblax\b") + "\n",
                                  encoding="utf-8")
    with pytest.raises(RulePackError, match="override.tmp_rule.*pattern 1 does not compile"):
        load_rules(d)
    # A list claiming the broken pattern was checked defers the error to the rule's first use,
    # where it is the same error; `rules check` compiles everything and fails at once.
    (d / CHECKED_FILE).write_text(pattern_key(broken) + "\n", encoding="utf-8")
    rules = load_rules(d)
    with pytest.raises(RulePackError, match="override.tmp_rule.*pattern 1 does not compile"):
        rules[0].compiled[0]
    with pytest.raises(RulePackError, match="override.tmp_rule"):
        check_packs(d)


def test_rules_check_writes_the_checked_list_only_when_clean(tmp_path: Path) -> None:
    from toolbound._detect.packs import CHECKED_FILE, checked_keys, pattern_key

    code = "import sys; from toolbound._cli import main; sys.exit(main(sys.argv[1:]))"
    src = str(Path(__file__).resolve().parents[1] / "src")

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                              env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"})

    d = _pack_dir(tmp_path, GOOD_RULE.format(pattern=r"\bzorblax\b"))
    res = cli("rules", "check", "--dir", str(d))
    assert res.returncode == 0 and "1 patterns are not in checked_patterns.txt" in res.stdout
    assert "1 patterns are not in pattern_analysis.json" in res.stdout
    res = cli("rules", "check", "--dir", str(d), "--write-checked")
    assert res.returncode == 0 and checked_keys(d) == {pattern_key(r"\bzorblax\b")}
    assert (d / "pattern_analysis.json").is_file()
    out = cli("rules", "check", "--dir", str(d)).stdout
    assert "not in checked_patterns" not in out and "pattern_analysis" not in out
    bad = _pack_dir(tmp_path / "bad", GOOD_RULE.format(pattern=r"\bzorblax\b").replace('"please zorblax"', '"zor"'))
    assert cli("rules", "check", "--dir", str(bad), "--write-checked").returncode == 1
    assert not (bad / CHECKED_FILE).exists() and not (bad / "pattern_analysis.json").exists()
    assert cli("rules", "list", "--write-checked").returncode == 2


# The corpus's languages, which the model learnt from, and the ten whose rules came in session 12.
CORPUS_LANGUAGES = {"en", "zh", "es", "fr", "de", "ja", "ko", "ru", "pt", "it", "ar"}
SESSION12_LANGUAGES = {"pl", "cs", "uk", "nl", "sv", "id", "tr", "vi", "hi", "fa"}


def test_rules_of_the_added_languages_do_not_read_the_corpus_languages() -> None:
    """A Ukrainian rule must not fire on Russian, a Hindi rule not on an English "[system]" line: every
    match example of every corpus-language rule is scanned, and no rule written only for the session-12
    languages may find anything in it (round 38's review narrowed 14 patterns that did)."""
    from toolbound._detect.engine import get_scanner

    scanner = get_scanner()
    added = {r.id for r in scanner.rules if set(r.languages) <= SESSION12_LANGUAGES}
    assert len(added) > 100
    crossings = []
    for rule in scanner.rules:
        if "any" in rule.languages or not set(rule.languages) <= CORPUS_LANGUAGES:
            continue
        for text in rule.examples_match:
            crossings += [(f.rule_id, rule.id, text[:60]) for f in scanner.scan(text) if f.rule_id in added]
    assert crossings == []


def test_whole_word_requires_hold_only_as_words(tmp_path: Path) -> None:
    from toolbound._detect.engine import Scanner

    def found(body: str, text: str, sub: str) -> bool:
        rules = load_rules(_pack_dir(tmp_path / sub, body))
        return any(f.rule_id == "override.tmp_rule" for f in Scanner(rules).scan(text))

    base = GOOD_RULE.format(pattern=r"\bzorblax\b").replace(
        'prefilter = ["zorblax"]', 'prefilter = ["zorblax"]\nrequires = ["ma", "~/"]')
    whole = base.replace('requires = ["ma", "~/"]', 'requires = ["ma", "~/"]\nrequires_words = true')
    # As a prefix (the default) "ma" holds inside "map"; as a whole word it does not.
    assert found(base, "zorblax the map", "a")
    assert not found(whole, "zorblax the map", "b")
    assert found(whole, "zorblax ma carte", "c")
    assert found(whole, "zorblax, ma", "d")  # at the end of the text
    assert found(whole, "zorblax ~/docs", "e")  # a literal ending in punctuation stays a prefix
    # Another rule's longer literal starting with "ma " must not hide the whole word.
    other = whole + GOOD_RULE.format(pattern=r"\bma carte bleue\b").replace(
        "override.tmp_rule", "override.tmp_other").replace('["zorblax"]', '["ma carte"]').replace(
        '["zorblax now", "please zorblax"]', '["ma carte bleue", "voici ma carte bleue"]').replace(
        '["nothing here", "zorb lax"]', '["ma carte", "ma carte verte"]')
    assert found(other, "zorblax ma carte", "f")
    assert not found(other, "zorblax mapping", "g")
    with pytest.raises(RulePackError, match="'requires_words' needs a 'requires' list"):
        load_rules(_pack_dir(tmp_path / "h", GOOD_RULE.format(pattern=r"\bzorblax\b").replace(
            'prefilter = ["zorblax"]', 'prefilter = ["zorblax"]\nrequires_words = true')))
