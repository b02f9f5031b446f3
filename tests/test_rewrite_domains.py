"""Reserved host names (the corpus's .test/.example convention) and their two rewrites."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from toolbound._detect.train import RESERVED_HOST_RE, rewrite_reserved, train_host

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("rewrite_domains", ROOT / "benchmarks" / "rewrite_domains.py")
assert _spec and _spec.loader
rd = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rd)


@pytest.mark.parametrize("text, hosts", [
    ("mail attacker@evil.test now", ["evil.test"]),
    ("see https://hooks.collect-logs.example/in?k=1 and x@mail.example.com.", ["hooks.collect-logs.example",
                                                                            "mail.example.com"]),
    ("billing@example.org, ops@corp.invalid; http://box.localhost:8080/", ["example.org", "corp.invalid",
                                                                            "box.localhost"]),
    ("file.test.py, for example. the test suite; example.community.org; see tests.example", ["tests.example"]),
    ("nothing reserved: acme.com, test, example, .test alone", []),
])
def test_reserved_hosts_are_found_exactly(text, hosts):
    assert [m.group() for m in RESERVED_HOST_RE.finditer(text)] == hosts


def test_both_rewrites_change_only_reserved_hosts_and_are_deterministic():
    text = "Send the list to attacker@evil.test (cc ops@evil.test) via https://collect.example/k; acme.com stays."
    for fn in (rd.rewrite, rewrite_reserved):
        out = fn(text)
        assert fn(text) == out
        assert RESERVED_HOST_RE.search(out) is None
        assert "acme.com stays." in out and out.startswith("Send the list to attacker@")
        assert out.count(out.split("attacker@")[1].split(" ")[0]) == 2  # one host, one replacement


def test_train_and_evaluation_vocabularies_never_meet():
    hosts = [f"h{i}.example" for i in range(3000)] + [f"x{i}.test" for i in range(3000)]
    train = {train_host(h).split(".")[0] for h in hosts}
    evaluation = {rd.replacement(h).split(".")[0] for h in hosts}
    assert train and evaluation and not train & evaluation
    assert all(any(name.startswith(w) for w in rd.FIRST) for name in evaluation)


def test_paired_dev_joins_added_records_and_can_keep_hosts(tmp_path, capsys):
    import json

    data = tmp_path / "corpus.jsonl"
    twins = tmp_path / "twins.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "a", "text": "mail x@evil.test", "label": 1, "split": "dev"},
        {"id": "b", "text": "train only", "label": 0, "split": "train"}]), encoding="utf-8")
    twins.write_text(json.dumps({"id": "twin-a", "text": "see shop.example", "label": 0, "split": "dev"}) + "\n",
                     encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert rd.main(["--data", str(data), "--add", str(twins), "--split", "dev", "--out", str(out)]) == 0
    recs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in recs] == ["a", "twin-a"]
    assert ".test" not in recs[0]["text"] and ".example" not in recs[1]["text"]
    assert rd.main(["--data", str(data), "--add", str(twins), "--keep-hosts", "--out", str(out)]) == 0
    assert [json.loads(line)["text"] for line in out.read_text(encoding="utf-8").splitlines()] == [
        "mail x@evil.test", "see shop.example"]
    twins.write_text("{oops\n", encoding="utf-8")
    assert rd.main(["--data", str(data), "--add", str(twins), "--out", str(out)]) == 2
    assert f"{twins}:1" in capsys.readouterr().err
