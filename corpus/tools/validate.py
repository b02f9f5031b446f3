"""Check a writer's JSONL file against corpus/SPEC.md before anyone reads its records.

    python corpus/tools/validate.py FILE PREFIX [--datasets DIR]

A round of ``benchmarks/model_selection.md`` gets its records from helper sessions that read only
``corpus/SPEC.md`` and their brief; this is the check their files pass (0 problems) before a round
uses them. It reads each line and reports every problem, naming the line and id:

- the fields are those of SPEC.md (``id text label family lang carrier group source``) plus ``inj``
  (the injected passages of a label-1 record, each a non-empty string occurring exactly once in the
  text; absent or empty for label 0); no ``split`` (build.py assigns it), nothing else;
- ids unique and starting with ``PREFIX-``; ``label`` 0 or 1; ``family`` one of the attack families
  for label 1 and ``benign:<kind>`` for label 0; ``lang`` a lower-case ISO 639-1 code; ``carrier``
  one of SPEC.md's; ``group`` a slug; ``source`` ``authored``;
- ``text`` non-empty, at most :data:`MAX_CHARS` characters, not repeated in the file, and not
  (after collapsing whitespace and case) a text of the corpus, its holdout sets or, with
  ``--datasets``, of the public files (read in place, never copied).

Exit status 0 with "ok" when there is no problem, 1 otherwise. Session 25 moved this check into
the repository; the rounds before it used a copy kept outside (lost with the machine).
"""

from __future__ import annotations

import argparse
import glob
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from taxonomy import BENIGN_KINDS, CARRIERS, FAMILIES  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MAX_CHARS = 4000
FIELDS = ("id", "text", "label", "family", "lang", "carrier", "group", "source")
_SLUG = re.compile(r"[a-z0-9][a-z0-9_.-]*")
_LANG = re.compile(r"[a-z]{2}")


def norm(text: str) -> str:
    """Text compared for reuse: whitespace collapsed, case folded."""
    return " ".join(text.split()).casefold()


def corpus_files(*, unadopted: bool = True) -> list[Path]:
    """The record files a new record is compared with: the corpus, the generated records, the
    holdout sets and (``unadopted``) the written training files no round adopted."""
    files = [ROOT / "corpus" / "corpus.jsonl", ROOT / "corpus" / "generated.jsonl"]
    folders = ("holdout", "unadopted") if unadopted else ("holdout",)
    for folder in folders:
        files += [Path(p) for p in sorted(glob.glob(str(ROOT / "corpus" / folder / "*.jsonl")))]
    return [f for f in files if f.exists()]


def known_texts(datasets: str | None = None) -> set[str]:
    """Normalised texts of the corpus, its holdout sets and (optionally) the public files."""
    files = corpus_files()
    if datasets:
        files += [Path(p) for p in sorted(glob.glob(str(Path(datasets) / "*.jsonl")))]
    out: set[str] = set()
    for f in files:
        with open(f, encoding="utf-8") as fh:
            for line in fh:
                line = line.strip()
                if line:
                    t = json.loads(line).get("text")
                    if isinstance(t, str):
                        out.add(norm(t))
    return out


def check_record(rec: object, prefix: str) -> list[str]:
    """Problems of one parsed record (no cross-record checks)."""
    if not isinstance(rec, dict):
        return ["not a JSON object"]
    probs = []
    missing = [k for k in FIELDS if k not in rec]
    if missing:
        probs.append(f"missing fields: {', '.join(missing)}")
    extra = sorted(set(rec) - set(FIELDS) - {"inj"})
    if extra:
        probs.append(f"unexpected fields: {', '.join(extra)}" + (" (build.py assigns split)" if "split" in extra else ""))
    rid, text, label = rec.get("id"), rec.get("text"), rec.get("label")
    if not isinstance(rid, str) or not rid.startswith(prefix + "-"):
        probs.append(f"id must be a string starting with {prefix + '-'!r}")
    if not isinstance(text, str) or not text.strip():
        probs.append("text must be a non-empty string")
    elif len(text) > MAX_CHARS:
        probs.append(f"text has {len(text)} characters (at most {MAX_CHARS})")
    if label not in (0, 1) or isinstance(label, bool):
        probs.append("label must be 0 or 1")
    fam = rec.get("family")
    if label == 1 and fam not in FAMILIES:
        probs.append(f"family {fam!r} is not an attack family")
    if label == 0 and not (isinstance(fam, str) and fam.startswith("benign:") and fam[7:] in BENIGN_KINDS):
        probs.append(f"family {fam!r} is not benign:<kind> with a kind of SPEC.md")
    if not isinstance(rec.get("lang"), str) or not _LANG.fullmatch(rec["lang"]):
        probs.append("lang must be a lower-case ISO 639-1 code")
    if rec.get("carrier") not in CARRIERS:
        probs.append(f"carrier {rec.get('carrier')!r} is not one of SPEC.md's")
    if not isinstance(rec.get("group"), str) or not _SLUG.fullmatch(rec["group"]):
        probs.append("group must be a slug (lower-case letters, digits, '-', '_', '.')")
    if rec.get("source") != "authored":
        probs.append("source must be 'authored'")
    inj = rec.get("inj")
    if label == 1:
        if not isinstance(inj, list) or not inj or not all(isinstance(s, str) and s.strip() for s in inj):
            probs.append("a label-1 record needs inj: a list of the injected passages (non-empty strings)")
        elif isinstance(text, str):
            for s in inj:
                k = text.count(s)
                if k != 1:
                    probs.append(f"inj passage occurs {k} times in text (must be once): {s[:60]!r}")
    elif inj not in (None, []):
        probs.append("a label-0 record has no inj passages (leave inj out or empty)")
    return probs


def validate(path: str | Path, prefix: str, known: set[str]) -> list[str]:
    """Every problem of the file, as ``line N (id): problem`` strings."""
    out: list[str] = []
    ids: set[str] = set()
    texts: dict[str, int] = {}
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                out.append(f"line {n}: not JSON ({exc})")
                continue
            rid = rec.get("id") if isinstance(rec, dict) else None
            where = f"line {n} ({rid})"
            out += [f"{where}: {p}" for p in check_record(rec, prefix)]
            if isinstance(rid, str):
                if rid in ids:
                    out.append(f"{where}: duplicate id")
                ids.add(rid)
            text = rec.get("text") if isinstance(rec, dict) else None
            if isinstance(text, str) and text.strip():
                t = norm(text)
                if t in texts:
                    out.append(f"{where}: same text as line {texts[t]}")
                texts.setdefault(t, n)
                if t in known:
                    out.append(f"{where}: text already in the corpus, a holdout set or a public file")
    if not ids:
        out.append("no records")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("prefix", help="the id prefix the brief gave (ids are PREFIX-...)")
    ap.add_argument("--datasets", help="also refuse texts of these public JSONL files (read in place)")
    args = ap.parse_args(argv)
    try:
        probs = validate(args.file, args.prefix, known_texts(args.datasets))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        print(f"error: cannot read {args.file} or the corpus files: {exc}", file=sys.stderr)
        return 2
    for p in probs:
        print(p)
    if probs:
        print(f"{len(probs)} problems")
        return 1
    print("ok: 0 problems")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
