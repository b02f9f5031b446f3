"""The common words left out of the language gate's markers (round 60; ``langid.GATE_COMMON``).

Run: ``PYTHONPATH=src python benchmarks/gate_words.py [--check]`` (from the repository root).

A rule whose languages are all Latin-script added languages (pl, cs, nl, sv, id, tr, vi) is skipped on a
text written in a known language unless the text holds a marker of its languages: a letter only that
language writes, or a function word of its ``langid`` list that no known Latin-script language's list
holds. Some of those words are also common in English or in code ("ve", "dan", "proto"): this script
counts, for each candidate word, the share of the corpus's English train-split records (tuning data)
and of 4 KB chunks of benign standard-library source (``bench_detect_speed.benign_source``) whose
folded, lower-cased words include it, and lists the words above ``langid.GATE_MAX_SHARE`` in either.
``--check`` fails (exit 1) when that list differs from ``langid.GATE_COMMON``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))


def common_words() -> dict[str, tuple[float, float]]:
    """word -> (share of English train records, share of benign 4 KB chunks), for the candidate
    marker words above ``GATE_MAX_SHARE`` in either."""
    from bench_detect_speed import benign_source

    from toolbound._detect import langid
    from toolbound._detect.fold import fold

    with open(ROOT / "corpus" / "corpus.jsonl", encoding="utf-8") as fh:
        recs = [json.loads(line) for line in fh if line.strip()]
    english = [r["text"] for r in recs if r["lang"] == "en" and r["split"] == "train"]
    benign = benign_source()
    chunks = [benign[i:i + 4000] for i in range(0, len(benign), 4000)]

    def words(texts: list[str]) -> list[frozenset[str]]:
        return [langid.text_words(fold(t).text.lower()) for t in texts]

    en_words, chunk_words = words(english), words(chunks)
    out: dict[str, tuple[float, float]] = {}
    for lang in langid.GATED_LANGUAGES:
        for w in sorted(set(langid._WORDS[lang].split()) - langid.KNOWN_LATIN_WORDS):
            fe = sum(w in s for s in en_words) / len(en_words)
            fc = sum(w in s for s in chunk_words) / len(chunk_words)
            if fe > langid.GATE_MAX_SHARE or fc > langid.GATE_MAX_SHARE:
                out[w] = (round(fe, 4), round(fc, 4))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail when langid.GATE_COMMON is not this list")
    args = ap.parse_args()
    from toolbound._detect import langid

    found = common_words()
    for w, (fe, fc) in sorted(found.items()):
        print(f"{w:10s} English train records {fe:.3f}  benign chunks {fc:.3f}")
    if set(found) != set(langid.GATE_COMMON):
        print(f"langid.GATE_COMMON is {sorted(langid.GATE_COMMON)}; the counts give {sorted(found)}")
        return 1 if args.check else 0
    print(f"langid.GATE_COMMON is up to date ({len(found)} words)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
